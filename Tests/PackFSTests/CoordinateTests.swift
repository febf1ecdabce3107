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

    /// A tile file's name: its row, then exactly the source's extension.
    func testATileNameIsItsRowAndTheSourcesExtension() {
        for (name, row) in [("0.pbf", 0), ("12.pbf", 12), ("16383.pbf", 16383)] {
            XCTAssertEqual(tileRow(name, "pbf"), row, name)
        }
        for name in ["12.png", "12.pb", "12.pbff", "12.PBF", "012.pbf", "12", ".pbf", "1.2.pbf", "12.pbf.", "١٢.pbf", "x.pbf", ""] {
            XCTAssertNil(tileRow(name, "pbf"), name)
        }
        XCTAssertEqual(tileRow("5.webp", "webp"), 5)
        XCTAssertEqual(tileRow("5.", ""), 5, "an empty extension: the name ends at its dot")
        XCTAssertNil(Array([0xFF, 0x2E, 0x70, 0x62, 0x66]).withUnsafeBufferPointer { PackLayout.row(named: $0, extension: "pbf") }, "not UTF-8")
    }

    /// The kernel's bytes of `name`, as the bridge hands them over.
    private func tileRow(_ name: String, _ ext: String) -> Int? {
        Array(name.utf8).withUnsafeBufferPointer { PackLayout.row(named: $0, extension: ext) }
    }
}
