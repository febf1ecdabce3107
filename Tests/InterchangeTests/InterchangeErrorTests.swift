import Interchange
import XCTest

final class InterchangeErrorTests: XCTestCase {
    func testTheErrorSaysWhatItWasGiven() {
        XCTAssertEqual(String(describing: InterchangeError("x.mbtiles: no tiles")), "x.mbtiles: no tiles")
    }
}
