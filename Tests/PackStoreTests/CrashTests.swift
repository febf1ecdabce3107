import Basics
import Foundation
import PackStore
import SQLiteDB
import TestSupport
import XCTest

/// A writer killed with SIGKILL mid-batch leaves a database that passes integrity_check and holds
/// every batch whose commit it had reported.
final class CrashTests: StoreTestCase {
    func testSIGKILLDuringBatchesLosesNothingCommitted() throws {
        for round in 0..<3 {
            try? FileManager.default.removeItem(atPath: path)
            let committed = try runWriterAndKill(afterCommits: 1 + round * 2)
            XCTAssertGreaterThan(committed, round * 2, "round \(round): the writer committed what it was waited for")
            let database = try OfflineDatabase.open(path: path)
            let pack = try database.pack(named: "crash")
            let tiles = try database.progress(of: pack.id).counts.tiles
            XCTAssertGreaterThanOrEqual(tiles, committed * 200, "round \(round)")
            XCTAssertEqual(tiles % 200, 0, "a batch is whole or absent")
            for batch in [0, committed - 1] {
                let key = TileKey(urlTemplate: "http://127.0.0.1/{z}/{x}/{y}.pbf", pixelRatio: 1, z: 14, x: batch, y: 199)
                let body = try XCTUnwrap(database.tile(key)?.data.decoded())
                XCTAssertEqual(body, Data((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* (batch + 199 + 1)) }))
            }
            try database.close()
            XCTAssertEqual(try raw().read { try String.fetchOne($0, sql: "PRAGMA integrity_check") }, "ok")
        }
    }

    /// A refresh's switch killed at a random moment (in its one transaction, mostly) leaves
    /// the old pack or the new one, every tile of it, with its staged rows or none; the switch
    /// ran to its end when the writer said so.
    func testSIGKILLDuringARefreshSwitchLeavesTheOldPackOrTheNewOne() throws {
        let tiles = 2_000
        var seen: [String] = []
        for round in 0..<3 {
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
            let said = try runAndKill(["switch", "\(tiles)"], after: "staged")
            let database = try OfflineDatabase.open(path: path)
            defer { try? database.close() }
            let pack = try database.pack(named: "crash")
            // The switch moves bytes and headers together: the ETags say which version each tile is.
            let versions = try raw().read { try String.fetchAll($0, sql: "SELECT DISTINCT etag FROM tiles") }
            XCTAssertTrue(versions == ["v0"] || versions == ["v1"], "round \(round): a mix \(versions)")
            let first = TileKey(urlTemplate: "http://127.0.0.1/{z}/{x}/{y}.pbf", pixelRatio: 1, z: 14, x: 7, y: 0)
            let version = versions == ["v1"] ? 1 : 0
            XCTAssertEqual(try database.tile(first)?.data.decoded(), Data((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 8 &+ version) }))
            let staged = try raw().read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM packfs_staged_tiles") }
            XCTAssertEqual(staged, version == 0 ? tiles : 0, "round \(round): staged rows until the switch, none after")
            if said.contains("switched") { XCTAssertEqual(version, 1, "round \(round): reported switched") }
            XCTAssertEqual(try database.progress(of: pack.id).counts.tiles, tiles)
            XCTAssertEqual(try raw().read { try String.fetchOne($0, sql: "PRAGMA integrity_check") }, "ok")
            seen.append(version == 0 ? "old" : "new")
        }
        print("refresh switch of \(tiles) tiles killed in it 3 times: \(seen)")
    }

    /// A process killed mid-transaction, its changed pages already spilled into the file,
    /// leaves a hot journal: a read-only open says so (it cannot roll it back), and the next
    /// writer's open rolls it back to the last commit. (PackFS refused such a file as damaged.)
    func testAHotJournalIsRolledBackByTheNextWriter() throws {
        let database = try OfflineDatabase.open(path: path)
        let pack = try database.createPack(name: "crash", definition: sampleDefinition())
        try database.write { batch in
            for x in 0..<100 {
                let id = try batch.putTile(tileKey(14, x, 0), data: .encoding(noise(4096, seed: UInt64(x))), headers: CacheHeaders())
                try batch.link(tile: id, to: pack.id)
            }
        }
        try database.close()
        try killSQLiteMidTransaction("PRAGMA cache_size = 1; BEGIN; UPDATE tiles SET data = zeroblob(8192);")
        XCTAssertTrue(FileManager.default.fileExists(atPath: path + "-journal"), "a hot journal")
        XCTAssertThrowsError(try OfflineDatabase.open(path: path, mode: .readOnly)) {
            XCTAssertEqual($0 as? StoreError, .interruptedTransaction(path: path))
        }
        let reopened = try OfflineDatabase.open(path: path)
        XCTAssertEqual(try reopened.tile(tileKey(14, 7, 0))?.data.decoded(), noise(4096, seed: 7), "rolled back")
        try reopened.close()
        XCTAssertEqual(try raw().read { try String.fetchOne($0, sql: "PRAGMA integrity_check") }, "ok")
    }

    /// Runs `sql` in the sqlite3 shell, then SIGKILLs it once it has said it ran (its
    /// transaction still open).
    private func killSQLiteMidTransaction(_ sql: String) throws {
        let shell = Process()
        shell.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        shell.arguments = [path]
        let input = Pipe(), output = Pipe()
        shell.standardInput = input
        shell.standardOutput = output
        try shell.run()
        input.fileHandleForWriting.write(Data("\(sql)\nSELECT 'ran';\n".utf8))
        var said = ""
        while !said.contains("ran"), shell.isRunning {
            said += String(decoding: output.fileHandleForReading.availableData, as: UTF8.self)
        }
        kill(shell.processIdentifier, SIGKILL)
        shell.waitUntilExit()
    }

    /// Runs the crash writer until it has reported `commits` batches committed, kills it a
    /// random moment later (mid-batch, most likely), and returns how many batches it reported.
    /// Waits for what the writer says, never for a fixed time: a writer slowed by a sanitizer is
    /// killed after the same work.
    private func runWriterAndKill(afterCommits commits: Int) throws -> Int {
        let process = Process()
        process.executableURL = BuiltProducts.executable("packfs-crashwriter")
        process.arguments = [path]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        var text = ""
        let deadline = Date().addingTimeInterval(120)
        while Self.commits(in: text) < commits, Date() < deadline, process.isRunning {
            text += String(decoding: output.fileHandleForReading.availableData, as: UTF8.self)
        }
        usleep(useconds_t.random(in: 0...20_000))
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationReason, .uncaughtSignal)
        text += String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        return Self.commits(in: text)
    }

    /// Runs the crash writer with `arguments` until it says `line`, kills it a random moment
    /// (0-20 ms) later, and returns all it said.
    private func runAndKill(_ arguments: [String], after line: String) throws -> String {
        let process = Process()
        process.executableURL = BuiltProducts.executable("packfs-crashwriter")
        process.arguments = [path] + arguments
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        var text = ""
        let deadline = Date().addingTimeInterval(120)
        while !text.contains(line), Date() < deadline, process.isRunning {
            text += String(decoding: output.fileHandleForReading.availableData, as: UTF8.self)
        }
        usleep(useconds_t.random(in: 0...20_000))
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        return text + String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    }

    private static func commits(in text: String) -> Int {
        text.split(separator: "\n").filter { $0.hasPrefix("committed ") }.count
    }
}
