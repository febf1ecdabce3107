import Downloader
import Foundation
import PackLifecycle
import PackStore
import TestSupport
import XCTest

/// Base class: a fresh session database (as a mount holds it), a real origin server chosen by
/// the test, a manager over both, and the test's own observer of the events.
class LifecycleTestCase: PackFSTestCase {
    override class var databaseMode: OfflineDatabase.Mode? { .mount }
    var manager: PackManager!
    var events: RecordingSink!

    override func setUpWithError() throws {
        try super.setUpWithError()
        events = RecordingSink()
    }

    override func tearDownWithError() throws {
        manager?.stop()
        try super.tearDownWithError()
    }

    /// A manager over `database` reporting to `events` (a fresh sink each time).
    @discardableResult
    func makeManager(concurrency: Int = 20) -> PackManager {
        var options = DownloadOptions()
        options.http.concurrency = concurrency
        // Origins here sit up to 30 s on an answer to stand for a run that is under way; with the
        // default 5 s stall timeout the request would be abandoned and sent again meanwhile.
        options.http.stallTimeout = 60
        events = RecordingSink()
        manager = PackManager(database: database, options: options, events: events)
        return manager
    }

    /// The Helsinki fixture region (zoom 0 to `maxZoom`) on `server`: 322 resources at z14.
    func regionFile(maxZoom: Int = 14) -> Data {
        Data("""
            {"style": "\(server.baseURL)/styles/bright.json", "bounds": [24.93, 60.16, 24.96, 60.18],
             "minzoom": 0, "maxzoom": \(maxZoom), "metadata": {"trip": "test"}}
            """.utf8)
    }

    /// Submits the region file for `name` and returns the pack it made.
    @discardableResult
    func submit(_ name: String, maxZoom: Int = 14) throws -> Pack {
        try manager.submitRegionFile(name: name, content: regionFile(maxZoom: maxZoom))
        return try database.pack(named: name)
    }

    func state(_ pack: Pack) throws -> PackState { try database.status(of: pack.id).state }

    /// `eventually`, failing the test after `timeout` seconds (generous: everything may run 5x
    /// slower under sanitizers).
    func wait(
        for what: String, timeout: TimeInterval = 60, file: StaticString = #filePath, line: UInt = #line,
        _ condition: () throws -> Bool
    ) throws {
        let reached = try eventually(timeout: timeout, condition)
        XCTAssertTrue(reached, "timed out waiting for \(what)", file: file, line: line)
    }

    func waitForState(_ pack: Pack, _ state: PackState, file: StaticString = #filePath, line: UInt = #line) throws {
        try wait(for: "\(pack.name) to be \(state)", file: file, line: line) { try self.state(pack) == state }
    }

    /// Seconds `body` took.
    func seconds(_ body: () throws -> Void) rethrows -> TimeInterval {
        let start = Date()
        try body()
        return Date().timeIntervalSince(start)
    }
}

/// The test's own observer of the lifecycle's events (not a stand-in for a real part).
final class RecordingSink: PackEventSink, @unchecked Sendable {  // every `var` is guarded by `lock`
    struct MembersLeft {
        var region: RegionID
        var tiles: [TileKey]
        var resources: [String]
    }

    private let lock = NSLock()
    private var ended: [(RegionID, PackDownload.Mode)] = []
    private var left: [MembersLeft] = []
    private var switches: [SwitchedContent] = []
    private var hashes: [RegionID] = []

    func packRunEnded(_ region: RegionID, mode: PackDownload.Mode) {
        lock.withLock { ended.append((region, mode)) }
    }

    func packMembersLeft(_ region: RegionID, tiles: [TileKey], resources: [String]) {
        lock.withLock { left.append(MembersLeft(region: region, tiles: tiles, resources: resources)) }
    }

    func packContentSwitched(_ switched: SwitchedContent) {
        lock.withLock { switches.append(switched) }
    }

    func packHashed(_ region: RegionID) {
        lock.withLock { hashes.append(region) }
    }

    /// The packs whose owed hashes were settled, in order.
    var hashed: [RegionID] { lock.withLock { hashes } }

    /// What the switches of `region`'s refreshes changed, in order.
    func switched(_ region: RegionID) -> [SwitchedContent] {
        lock.withLock { switches.filter { $0.region == region } }
    }

    /// The modes of the runs of `region` that ended, in order.
    func runsEnded(_ region: RegionID) -> [PackDownload.Mode] {
        lock.withLock { ended.filter { $0.0 == region }.map(\.1) }
    }

    func membersLeft(_ region: RegionID) -> [MembersLeft] {
        lock.withLock { left.filter { $0.region == region } }
    }
}

extension LifecycleTestCase {
    /// Standard error captured into a file in the test's directory while `body` runs: the
    /// lifecycle's log lines.
    func capturingStandardError(_ body: () throws -> Void) throws -> String {
        let path = temp.path("stderr")
        let file = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        let saved = dup(2)
        guard file >= 0, saved >= 0 else { throw CocoaError(.fileWriteUnknown) }
        dup2(file, 2)
        close(file)
        defer {
            dup2(saved, 2)
            close(saved)
        }
        try body()
        return try String(contentsOfFile: path, encoding: .utf8)
    }
}
