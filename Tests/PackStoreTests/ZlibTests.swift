import Basics
import Foundation
import PackStore
import XCTest

/// Zlib.decompress (libdeflate, zlib for what it refuses) and Zlib.inflate's one-shot buffer:
/// outputs far larger than the first guess, empty ones, gzip, trailing bytes, damage.
final class ZlibTests: XCTestCase {
    func testBothDecodersGiveTheSameBytesForZlibAndGzip() throws {
        let text = Data((0..<50_000).map { UInt8(truncatingIfNeeded: $0 % 251 * 7) })
        let zlib = try Zlib.compress(text)
        XCTAssertEqual(try Zlib.decompress(zlib), text)
        XCTAssertEqual(try Zlib.inflate(zlib, windowBits: 15), text)
        // gzip as `gzip -n` writes it: header, the raw deflate stream, CRC-32, ISIZE.
        let crc = Self.crc32(text)
        let size = UInt32(text.count)
        var gzip = Data([0x1F, 0x8B, 8, 0, 0, 0, 0, 0, 0, 3])
        gzip.append(zlib[(zlib.startIndex + 2)..<(zlib.endIndex - 4)])
        withUnsafeBytes(of: crc.littleEndian) { gzip.append(contentsOf: $0) }
        withUnsafeBytes(of: size.littleEndian) { gzip.append(contentsOf: $0) }
        XCTAssertEqual(try Zlib.decompress(gzip), text)
        XCTAssertEqual(try Zlib.inflate(gzip, windowBits: 31), text)
    }

    func testBytesAfterTheStreamAreIgnoredAsZlibDoes() throws {
        let packed = try Zlib.compress(Data("tile".utf8))
        XCTAssertEqual(try Zlib.decompress(packed + Data("junk".utf8)), Data("tile".utf8))
    }

    func testInflatesOutputsThatOutgrowTheFirstBufferManyTimes() throws {
        let text = Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0 / 1000) })
        let packed = try Zlib.compress(text)
        XCTAssertLessThan(packed.count * 16, text.count, "the test needs several doublings")
        XCTAssertEqual(try Zlib.decompress(packed), text)
    }

    /// A zlib bomb (a stored row from a foreign database file) stops at the limit with an error
    /// that says so, in both decoders, instead of growing until memory runs out.
    func testAnOutputPastTheLimitIsRefused() throws {
        let bomb = try Zlib.compress(Data(count: 8 << 20))
        XCTAssertLessThan(bomb.count, 16 << 10)
        for decode in [{ try Zlib.decompress(bomb, limit: 1 << 20) }, { try Zlib.inflate(bomb, windowBits: 15, limit: 1 << 20) }] {
            XCTAssertThrowsError(try decode()) { error in
                XCTAssertEqual("\(error)", "inflated data exceeds 1048576 bytes")
            }
        }
        XCTAssertEqual(try Zlib.decompress(bomb, limit: 8 << 20).count, 8 << 20, "exactly the limit is allowed")
        XCTAssertEqual(try Zlib.inflate(bomb, windowBits: 15, limit: 8 << 20).count, 8 << 20)
    }

    /// Gzip is told by its first two bytes, whatever holds them.
    func testGzipIsToldByItsFirstTwoBytes() throws {
        let gzip = try Zlib.gzip(Data("tile".utf8))
        XCTAssertTrue(Zlib.isGzip(gzip))
        XCTAssertTrue(gzip.withUnsafeBytes { Zlib.isGzip($0) })
        XCTAssertTrue(Zlib.isGzip([0x1F, 0x8B] as [UInt8]))
        XCTAssertFalse(Zlib.isGzip(try Zlib.compress(Data("tile".utf8))))
        XCTAssertFalse(Zlib.isGzip([0x1F] as [UInt8]))
        XCTAssertFalse(Zlib.isGzip([0x8B, 0x1F] as [UInt8]))
        XCTAssertFalse(Zlib.isGzip(Data()))
        XCTAssertFalse(Zlib.isGzip(gzip.dropFirst()))
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

    /// CRC-32 (gzip's), bit by bit: slow and obviously right.
    static func crc32(_ data: Data) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in data {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }
}
