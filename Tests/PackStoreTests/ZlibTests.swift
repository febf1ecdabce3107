import Foundation
import PackStore
import XCTest

/// Zlib.inflate's one-shot buffer: outputs far larger than the first guess, empty ones, damage.
final class ZlibTests: XCTestCase {
    func testInflatesOutputsThatOutgrowTheFirstBufferManyTimes() throws {
        let text = Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0 / 1000) })
        let packed = try Zlib.compress(text)
        XCTAssertLessThan(packed.count * 16, text.count, "the test needs several doublings")
        XCTAssertEqual(try Zlib.decompress(packed), text)
    }

    func testInflatesEmptyContent() throws {
        XCTAssertEqual(try Zlib.decompress(try Zlib.compress(Data())), Data())
    }

    func testRefusesTruncatedOrDamagedStreams() throws {
        let packed = try Zlib.compress(Data(repeating: 65, count: 10_000) + Data("tail".utf8))
        XCTAssertThrowsError(try Zlib.decompress(packed.dropLast(3)))
        var damaged = packed
        damaged[damaged.count - 1] ^= 0xFF
        XCTAssertThrowsError(try Zlib.decompress(damaged), "adler32 is still checked")
    }
}
