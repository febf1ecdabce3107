import TestSupport
import XCTest

/// A daemon mount published by nginx (`site`), with an origin of its own for downloads
/// (`slowOrigin`): the web tests' shared setup; both stop with the test.
class WebSiteMountTestCase: DaemonMountTestCase {
    var site: WebSite?
    var slowOrigin: TestServer?

    override func tearDown() {
        site?.stop()
        slowOrigin?.stop()
        super.tearDown()
    }
}
