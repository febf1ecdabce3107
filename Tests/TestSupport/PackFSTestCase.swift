import Basics
import Foundation
import PackStore
import XCTest

/// The one base class of the tests, GRDB style: each test gets a fresh temporary directory `temp`
/// and, when its class names a `databaseMode`, a fresh `database` (`databasePath`) open in that
/// mode, and the origin it starts (`server`); all go after the test. The mount, server and command
/// cases build on it, so no test makes a directory of its own.
open class PackFSTestCase: XCTestCase {
    public private(set) var temp: TemporaryDirectory!
    /// Settable: a test may close it and open the file again.
    public var database: OfflineDatabase!

    /// The test's origin, when it starts one: stopped after the test, unless the class shares it.
    public var server: TestServer!

    /// True where `server` is the class's, made once for all of its tests (which only read from
    /// it) and stopped by the class.
    open class var sharesServer: Bool { false }

    /// The mode `database` opens in; nil (the default) opens none, for classes whose file belongs
    /// to a command or daemon under test, or that open theirs in their own way.
    open class var databaseMode: OfflineDatabase.Mode? { nil }

    /// temp/packs.db: `database`'s file, and the one a command or daemon under test is given.
    public var databasePath: String { temp.path("packs.db") }

    /// The classes' directories (`classDirectory()`), by class.
    private static let classDirectories = LockedState<[ObjectIdentifier: TemporaryDirectory]>([:])

    /// The class's directory, for what its `class func setUp` makes once for all of its tests (a
    /// server's world, a downloaded pack): made on first use, removed after the class's tests.
    public class func classDirectory() throws -> TemporaryDirectory {
        try classDirectories.withLock { made in
            if let directory = made[ObjectIdentifier(self)] { return directory }
            let directory = try TemporaryDirectory()
            made[ObjectIdentifier(self)] = directory
            return directory
        }
    }

    /// A subclass that overrides it (to stop a class's server) calls super last.
    override open class func tearDown() {
        classDirectories.withLock { $0.removeValue(forKey: ObjectIdentifier(self)) }?.remove()
        super.tearDown()
    }

    override open func setUpWithError() throws {
        try super.setUpWithError()
        temp = try TemporaryDirectory()
        if let mode = Self.databaseMode {
            database = try OfflineDatabase.open(path: databasePath, mode: mode)
        }
    }

    /// A directory kept after the test (the base class leaves it), for what a person looks at:
    /// the pictures a render test compares.
    public func keptDirectory(_ name: String) throws -> TemporaryDirectory {
        try TemporaryDirectory(prefix: "packfs-\(name)")
    }

    /// XCTest calls it after `tearDown()`, where subclasses unmount and stop servers: so the
    /// directory goes after whatever used it. A subclass that overrides it calls super last.
    override open func tearDownWithError() throws {
        defer { temp?.remove() }
        if !Self.sharesServer { server?.stop() }
        try database?.close()
        try super.tearDownWithError()
    }
}
