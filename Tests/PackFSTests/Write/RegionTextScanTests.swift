import Foundation
import FuzzBodies
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

    /// The regiontext fuzz body on inputs of each kind it judges: a good object in uneven chunks,
    /// NUL bytes and binary junk first (which must fail the write that brings them), blanks.
    func testTheFuzzBodyHoldsForGoodTextJunkAndBlanks() throws {
        let good = Data(#"{"style": "http://127.0.0.1:9/s.json", "bounds": [0, 0, 1, 1]}"#.utf8)
        let plan = Data([2, 7, 0])  // three chunks: 7 bytes, none, the rest
        for text in [good, Data(count: 40), Data([0x20, 0x0A, 0x00]) + good, Data([0x89, 0x50, 0x4E, 0x47]), Data(repeating: 0x20, count: 300)] {
            XCTAssertNoThrow(try FuzzBodies.run(.regiontext, plan + text), "\(text.prefix(8).map { $0 })")
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
