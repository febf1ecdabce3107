import Foundation
import GRDB
import PackStore
import TestSupport
import XCTest

/// A writer killed with SIGKILL mid-batch leaves a database that passes integrity_check and holds
/// every batch whose commit it had reported.
final class CrashTests: StoreTestCase {
    func testSIGKILLDuringBatchesLosesNothingCommitted() throws {
        for round in 0..<3 {
            try? FileManager.default.removeItem(atPath: path)
            let committed = try runWriterAndKill(afterMilliseconds: 300 + round * 250)
            XCTAssertGreaterThan(committed, 0, "round \(round): the writer committed something")
            let database = try OfflineDatabase.open(path: path)
            let pack = try database.pack(named: "crash")
            let tiles = try database.counts(of: pack.id).tiles
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

    /// Runs the crash writer, kills it after a delay (mid-batch, most likely), returns how many
    /// batches it had reported committed.
    private func runWriterAndKill(afterMilliseconds delay: Int) throws -> Int {
        let process = Process()
        process.executableURL = BuiltProducts.executable("packfs-crashwriter")
        process.arguments = [path]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        usleep(useconds_t(delay * 1000))
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationReason, .uncaughtSignal)
        let lines = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            .split(separator: "\n").filter { $0.hasPrefix("committed ") }
        return lines.count
    }
}
