import Foundation
import XCTest

@testable import ObjectStorage

/// The payload hash against FIPS 180-4's vectors and block boundaries.
final class SHA256Tests: XCTestCase {
    private func hex(_ text: String) -> String { Data(text.utf8).withUnsafeBytes { SHA256.hex($0) } }

    func testTheStandardVectors() {
        XCTAssertEqual(hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        XCTAssertEqual(hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        XCTAssertEqual(hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
                       "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        XCTAssertEqual(hex("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu"),
                       "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1")
        XCTAssertEqual(hex(String(repeating: "a", count: 1_000_000)),
                       "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    /// Lengths around the 64-byte block and the 56-byte padding limit: fed in pieces, the same
    /// hash as fed whole.
    func testPiecesAndBoundariesAgreeWithTheWhole() {
        let data = Data((0..<200).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 3) })
        for length in [55, 56, 63, 64, 65, 119, 120, 128, 200] {
            let slice = data.prefix(length)
            let whole = slice.withUnsafeBytes { SHA256.hex($0) }
            var pieces = SHA256()
            for start in stride(from: 0, to: length, by: 13) {
                slice.dropFirst(start).prefix(13).withUnsafeBytes { pieces.update($0) }
            }
            XCTAssertEqual(pieces.finish().map { String(format: "%02x", $0) }.joined(), whole, "\(length)")
        }
    }
}
