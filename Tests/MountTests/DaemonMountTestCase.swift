import Basics
import Foundation
import PackStore
import TestSupport
import XCTest

/// A mount's packs/ directory as a user reads it: what the tests of a `packfs mount` daemon (and
/// the crash rig) watch a pack's state through.
protocol PacksDirectory {
    /// The mount's packs/ directory.
    var packs: String { get }
}

extension PacksDirectory {
    /// progress.json of `pack` through the mount (nil when absent or unreadable).
    func progress(_ pack: String) -> JSONValue? {
        FileManager.default.contents(atPath: "\(packs)/\(pack)/progress.json").flatMap(JSONValue.parse)
    }

    func state(_ pack: String) -> String? { progress(pack)?["state"]?.string }

    /// Polls progress.json until the state of `pack` is one of `states` (and no hash is being
    /// computed: a complete pack's comes just after it); fails the test after
    /// `timeout` seconds. Returns the last state seen.
    @discardableResult
    func waitForState(_ pack: String, _ states: Set<String> = ["complete"], timeout: TimeInterval = 120,
                      file: StaticString = #filePath, line: UInt = #line) -> String? {
        var last: JSONValue?
        let reached = eventually(timeout: timeout) {
            last = progress(pack)
            // A complete pack's hash comes after it, in the background: waited for too.
            return (last?["state"]?.string.map(states.contains) ?? false) && last?["hashing"] == nil
        }
        XCTAssertTrue(reached, "\(pack) did not reach \(states.sorted()): \(String(describing: last))",
                      file: file, line: line)
        return last?["state"]?.string
    }
}

/// Base class of the tests of the real `packfs mount` daemon: each test's directory (`temp`)
/// holds the database `db` and the mountpoint (`mount`); each gets the origin `makeServer()` starts
/// (nginx unless the class says otherwise; one for the whole class when `sharesServer`, for
/// classes whose tests only read from it). tearDown unmounts, waits for the daemon to close the
/// database and stops the test's server.
class DaemonMountTestCase: PackFSTestCase, PacksDirectory {
    var mount: MountHelper!
    var db: String { databasePath }
    var packs: String { mount.path + "/packs" }
    /// The database the daemon serves (`db` unless `mountPackFS` was given another).
    private var mounted: String?

    /// Central Helsinki: the fixture world's area.
    static let helsinkiBounds = [24.93, 60.16, 24.96, 60.18]

    /// The origin each test (or the class, with `sharesServer`) gets; nil for none.
    class func makeServer() throws -> TestServer? { try TestServer.nginx() }

    /// The servers of the classes that share one, made in `class func setUp`.
    private static let shared = LockedState<[ObjectIdentifier: ClassFixture<TestServer?>]>([:])

    override class func setUp() {
        super.setUp()
        guard sharesServer else { return }
        let fixture = ClassFixture<TestServer?>()
        fixture.setUp { try makeServer() }
        shared.withLock { $0[ObjectIdentifier(self)] = fixture }
    }

    override class func tearDown() {
        let fixture = shared.withLock { $0.removeValue(forKey: ObjectIdentifier(self)) }
        fixture?.tearDown { $0?.stop() }
        super.tearDown()
    }

    /// The class's server, with `sharesServer` (or the error that stopped it).
    class func sharedServer() throws -> TestServer? {
        let fixture = shared.withLock { $0[ObjectIdentifier(self)] }
        return try XCTUnwrap(fixture, "\(self) shares no server").value()
    }

    override func setUpWithError() throws {
        try super.setUpWithError()
        try MountHelper.requireFUSE()
        mount = try MountHelper(in: temp)
        server = Self.sharesServer ? try Self.sharedServer() : try Self.makeServer()
    }

    override func tearDown() {
        if let mount, mount.isMounted {
            MountHelper.runTool("/usr/bin/fusermount3", ["-u", mount.path])
            _ = eventually(timeout: 15) { !daemonHoldsTheDatabase }
        }
        mount?.unmount()
        super.tearDown()
    }

    /// Runs the `packfs` binary; the text is stdout and stderr together.
    func packfs(_ arguments: [String], timeout: TimeInterval = 300) throws -> (status: Int32, text: String) {
        try Packfs.run(arguments, timeout: timeout)
    }

    /// `packfs mount DATABASE MOUNTPOINT` (`db` by default) with `extra` options: fails the test
    /// unless it exits 0 with the mount up.
    func mountPackFS(_ extra: [String] = [], database: String? = nil,
                     file: StaticString = #filePath, line: UInt = #line) throws {
        mounted = database ?? db
        let outcome = try packfs(["mount", database ?? db, mount.path] + extra)
        XCTAssertEqual(outcome.status, 0, outcome.text, file: file, line: line)
        XCTAssertTrue(eventually(timeout: 30) { mount.isMounted }, "no mount at \(mount.path)", file: file, line: line)
    }

    /// `fusermount3 -u`, then waits for the daemon to close the database: its last act puts the
    /// file back in DELETE journal mode, and the -wal file goes.
    func unmountPackFS(file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(MountHelper.runTool("/usr/bin/fusermount3", ["-u", mount.path]).status, 0, file: file, line: line)
        XCTAssertTrue(eventually(timeout: 30) { !daemonHoldsTheDatabase }, "the daemon closed the database",
                      file: file, line: line)
    }

    private var daemonHoldsTheDatabase: Bool { FileManager.default.fileExists(atPath: (mounted ?? db) + "-wal") }

    /// Writes region file `name` beside the database: `style` (the server's bright.json unless
    /// given) over `bounds` from zoom 0 to `maxZoom`, with `extra` members (`"pixel_ratio": 2`).
    /// Returns its path.
    func regionFile(_ name: String, style: String? = nil, bounds: [Double] = helsinkiBounds, maxZoom: Int = 14,
                    extra: String? = nil) throws -> String {
        let path = temp.path(name)
        try Self.region(style: style ?? server.url("/styles/bright.json"), bounds: bounds, maxZoom: maxZoom, extra: extra)
            .write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// A region file's text (see `regionFile`).
    static func region(style: String, bounds: [Double] = helsinkiBounds, maxZoom: Int = 14, extra: String? = nil) -> String {
        let members = [
            "\"style\": \"\(style)\"", "\"bounds\": [\(bounds.map { "\($0)" }.joined(separator: ", "))]",
            "\"minzoom\": 0", "\"maxzoom\": \(maxZoom)",
        ] + (extra.map { [$0] } ?? [])
        return "{" + members.joined(separator: ", ") + "}\n"
    }

    /// `cp REGION packs/<pack>.region`, as a user makes a pack; fails the test unless cp succeeds.
    func copyRegion(_ region: String, to pack: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let cp = try Command.run("/bin/cp", [region, "\(packs)/\(pack).region"])
        XCTAssertEqual(cp.status, 0, cp.text, file: file, line: line)
    }
}
