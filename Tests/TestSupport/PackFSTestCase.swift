import Foundation
import PackStore
import XCTest

/// Base class, GRDB style: each test gets a fresh temporary directory and `database` in it, open
/// in `.mount` mode (a mount's: WAL, exclusive lock); both go after the test.
open class SessionDatabaseTestCase: XCTestCase {
    public var temp: TemporaryDirectory!
    public var database: OfflineDatabase!

    override open func setUpWithError() throws {
        temp = try TemporaryDirectory(prefix: "packfs-session")
        database = try OfflineDatabase.open(path: temp.path("packs.db"), mode: .mount)
    }

    override open func tearDownWithError() throws {
        try database?.close()
        temp?.remove()
    }
}
