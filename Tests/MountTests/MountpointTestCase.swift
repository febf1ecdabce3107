import TestSupport
import XCTest

/// Each test gets an empty mountpoint in `temp` (FUSE required: a skip on a laptop, a failure in
/// CI) for a mount the test makes itself, through a script or a command, on `db`; whatever is
/// mounted there is unmounted in tearDown.
class MountpointTestCase: PackFSTestCase {
    var mount: MountHelper!
    var db: String { databasePath }

    override func setUpWithError() throws {
        try super.setUpWithError()
        try MountHelper.requireFUSE()
        mount = try MountHelper(in: temp)
    }

    override func tearDown() {
        mount?.unmount()
        super.tearDown()
    }
}
