import Foundation
import TestSupport
import XCTest

/// `rm -r packs/<name>` of a large pack (the world to z4, about 650 files) with the daemon
/// SIGKILLed after a random number of files went: the next mount shows the whole pack or
/// nothing, never a half pack, and `rm -r` then ends the removal without an error. A pack
/// sharing resources keeps all of its own, and recreating the removed pack fetches nothing
/// (its rows stayed as ambient cache).
final class RemovalCrashTests: CrashRigTestCase {
    override class var estimated: [RegionSpec] { [.helsinki, .world] }

    func testKillingTheDaemonDuringRemovals() throws {
        try rig.mount(concurrency: 20)
        try rig.write(.world, to: "big")
        try rig.write(.helsinki, to: "keep")
        rig.waitForState("big")
        rig.waitForState("keep")
        let files = try FileManager.default.subpathsOfDirectory(atPath: rig.packs + "/big").count
        let before = try rig.snapshot()
        let full = try XCTUnwrap(before.packs["big"]?.members)
        let kept = try XCTUnwrap(before.packs["keep"]?.members)
        rig.unmount()
        try rig.mount()
        try roundsUntilEnoughKills {
            let rm = try LineCountingProcess("/bin/rm", ["-rv", rig.packs + "/big"])
            // Up to every file and directory, and once in a while the final rmdir itself.
            let removed = Int.random(in: 1...files + 1)
            _ = eventually(timeout: 60) { rm.lines >= removed || !rm.isRunning }
            try rig.kill()
            XCTAssertTrue(rm.waitForExit(timeout: 30), "rm ended once the daemon was gone")
            // The files as the kill left them may hold drops not yet settled: what counts is
            // what the next mount (the next writer to open them) shows.
            try rig.mount()
            let after = try rig.snapshot()
            let big = after.packs["big"]?.members
            XCTAssertTrue(big == nil || big == full, "whole or gone after kill \(rig.figures.kills): \(big?.count ?? 0) of \(full.count)")
            if big == nil { rig.figures.goneAfterKill += 1 } else { rig.figures.wholeAfterKill += 1 }
            XCTAssertEqual(after.packs["keep"]?.members, kept, "the other pack keeps everything")
            try finishRemoval(wasWhole: big != nil)
            rig.figures.resumes += 1
            try recreate(expecting: full)
        }
        rig.unmount()
        rig.figures.report("crash-mount-remove")
    }

    /// The next mount: a pack still there is whole and readable, and `rm -r` removes it
    /// without a word; then it is gone.
    private func finishRemoval(wasWhole: Bool) throws {
        if wasWhole {
            rig.waitForState("big")
            try rig.checkMountedContent("big")
            let rm = try Command.run("/bin/rm", ["-r", rig.packs + "/big"])
            XCTAssertEqual(rm.status, 0, rm.text)
            XCTAssertEqual(rm.text, "", "rm -r prints nothing")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: rig.packs + "/big"))
        XCTAssertNil(try rig.snapshot().packs["big"])
    }

    /// Writes the region file again: the pack comes back whole from the rows its removal left
    /// as ambient cache, with no request.
    private func recreate(expecting full: Set<String>) throws {
        let requests = rig.arrivalCount()
        try rig.write(.world, to: "big")
        rig.waitForState("big")
        XCTAssertEqual(try rig.snapshot().packs["big"]?.members, full)
        XCTAssertEqual(rig.arrivalCount(), requests, "nothing stored was fetched again")
    }
}

/// A process whose standard output lines are counted as they come (`rm -v` says what it removed).
final class LineCountingProcess: @unchecked Sendable {  // `count` is guarded by `lock`
    private let process = Process()
    private let lock = NSLock()
    private var count = 0
    private let done = DispatchSemaphore(value: 0)

    init(_ executable: String, _ arguments: [String]) throws {
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        try process.run()
        let reader = pipe.fileHandleForReading
        Thread.detachNewThread {
            while case let data = reader.availableData, !data.isEmpty {
                let lines = data.reduce(0) { $0 + ($1 == UInt8(ascii: "\n") ? 1 : 0) }
                self.lock.withLock { self.count += lines }
            }
            self.done.signal()
        }
    }

    var lines: Int { lock.withLock { count } }
    var isRunning: Bool { process.isRunning }

    /// Waits (bounded) for the process to end and its output to be read.
    func waitForExit(timeout: TimeInterval) -> Bool {
        eventually(timeout: timeout) { !process.isRunning } && done.wait(timeout: .now() + timeout) == .success
    }
}
