import Foundation
@testable import PackFS
import XCTest

/// When a region file's text is decided, fed whole and a byte at a time.
final class RegionTextScanTests: XCTestCase {
    func testStates() {
        let cases: [(String, RegionTextScan.State)] = [
            ("", .open), ("  \n", .open), ("{", .open), (#"{"a": [1, {"b": "}"}"#, .open),
            ("{}", .complete), (" {\"a\": [1, 2]}\n\t ", .complete), ("\u{FEFF}{}", .complete),
            (#"{"a": "]}\"}"}"#, .complete), (#"{"a": "\\"}"#, .complete), (#"{"a" 1 2}"#, .complete),
            ("x", .malformed), ("[]", .malformed), ("\"{}\"", .malformed), ("{]", .malformed),
            ("{\"a\": [}", .malformed), ("{} x", .malformed), ("{}{}", .malformed),
        ]
        for (text, state) in cases {
            var whole = RegionTextScan()
            whole.advance(over: Data(text.utf8))
            XCTAssertEqual(whole.state, state, text)
            var bytewise = RegionTextScan()
            var written = Data()
            for byte in Data(text.utf8) {
                written.append(byte)
                bytewise.advance(over: written)
            }
            XCTAssertEqual(bytewise.state, state, "byte by byte: \(text)")
        }
    }

    func testAHoleStopsTheScanUntilFilled() {
        var scan = RegionTextScan()
        var text = Data(count: 2) + Data("}".utf8)
        scan.advance(over: text)
        XCTAssertEqual(scan.state, .open)
        XCTAssertEqual(scan.position, 0)
        text.replaceSubrange(0..<2, with: Data("{ ".utf8))
        scan.advance(over: text)
        XCTAssertEqual(scan.state, .complete)
    }
}
