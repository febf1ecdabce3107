@testable import PackFS
import XCTest

/// The z, x and y a path names: canonical decimal only, so that one tile has one name.
final class CoordinateTests: XCTestCase {
    func testCanonicalDecimalNamesParse() {
        for (text, value) in [("0", 0), ("7", 7), ("10", 10), ("16383", 16383), ("99999999", 99_999_999)] {
            XCTAssertEqual(PackFilesystem.coordinate(text), value, text)
        }
    }

    func testEveryOtherSpellingIsNoCoordinate() {
        for text in ["", "00", "07", "-1", "+1", " 1", "1 ", "1.0", "1e3", "0x1", "999999999", "١٢", "１", "½", "a"] {
            XCTAssertNil(PackFilesystem.coordinate(text), text)
        }
    }
}
