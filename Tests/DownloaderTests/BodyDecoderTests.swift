import Basics
import CZlib
@testable import Downloader
import Foundation
@testable import HTTP
import PackStore
import TestSupport
import XCTest

final class BodyDecoderTests: XCTestCase {
    private let glyphs = "fonts/Noto Sans Regular/0-255.pbf"
    private let limit = 64 << 20

    private func fixture(_ path: String) throws -> Data {
        try Data(contentsOf: ProjectPaths.world.appendingPathComponent(path))
    }

    func testGzipWithEveryOptionalHeaderFieldIsReframed() throws {
        let content = try fixture(glyphs)
        let body = try ZlibGzip.member(content, name: "0-255.pbf", comment: "fixture", extra: [1, 2, 3, 4], headerCRC: true)
        XCTAssertEqual(body[3], 0x1E, "FHCRC, FEXTRA, FNAME and FCOMMENT set")
        let decoded = try BodyDecoder().decode(body, contentEncoding: "gzip", limit: limit, url: "u")
        XCTAssertEqual(decoded.content, content)
        try assertReframed(decoded, gzip: body, deflateStart: 10 + 2 + 4 + 10 + 8 + 2)
    }

    func testPythonGzipOutputIsReframed() throws {
        for path in [glyphs, "tiles/helsinki/14/9326/4741.pbf", "styles/bright.json"] {
            let content = try fixture(path)
            let body = try PythonGzip.compress(ProjectPaths.world.appendingPathComponent(path).path)
            let decoded = try BodyDecoder().decode(body, contentEncoding: "gzip", limit: limit, url: "u")
            XCTAssertEqual(decoded.content, content, path)
            XCTAssertEqual(body[3] & 0x08, 0x08, "Python writes FNAME")
            let nameEnd = body[10...].firstIndex(of: 0)! + 1
            try assertReframed(decoded, gzip: body, deflateStart: nameEnd)
        }
    }

    /// The stored form is zlib holding the very deflate bytes of the gzip member, and zlib's own
    /// uncompress() (which checks the Adler-32) gives back the content.
    private func assertReframed(_ decoded: BodyDecoder.Decoded, gzip: Data, deflateStart: Int,
                                file: StaticString = #filePath, line: UInt = #line) throws {
        XCTAssertTrue(decoded.stored.compressed, file: file, line: line)
        let stored = try XCTUnwrap(decoded.stored.bytes, file: file, line: line)
        XCTAssertEqual(Array(stored.prefix(2)), [0x78, 0x9C], file: file, line: line)
        XCTAssertEqual(stored.dropFirst(2).dropLast(4), gzip[deflateStart..<(gzip.count - 8)], file: file, line: line)
        XCTAssertLessThan(stored.count, decoded.content.count, file: file, line: line)
        XCTAssertEqual(try Zlib.decompress(stored), decoded.content, file: file, line: line)
        XCTAssertEqual(try Zlib.inflate(stored, windowBits: 15), decoded.content, file: file, line: line)
        XCTAssertEqual(try ZlibGzip.uncompress(stored, size: decoded.content.count), decoded.content, file: file, line: line)
    }

    func testIncompressibleGzipIsStoredRaw() throws {
        var generator = SystemRandomNumberGenerator()
        let content = Data((0..<4096).map { _ in UInt8.random(in: 0...255, using: &generator) })
        let body = try ZlibGzip.member(content)
        let decoded = try BodyDecoder().decode(body, contentEncoding: "gzip", limit: limit, url: "u")
        XCTAssertEqual(decoded.content, content)
        XCTAssertEqual(decoded.stored, StoredData(bytes: content, compressed: false))
    }

    func testCorruptGzipFailsAsCorrupt() throws {
        var body = try ZlibGzip.member(try fixture(glyphs))
        body[body.count / 2] ^= 0x55
        body[body.count - 8] ^= 0xFF
        XCTAssertThrowsError(try BodyDecoder().decode(body, contentEncoding: "gzip", limit: limit, url: "u")) { error in
            guard case HTTPError.corruptBody = error else { return XCTFail("\(error)") }
        }
        let truncated = try ZlibGzip.member(try fixture(glyphs)).prefix(100)
        XCTAssertThrowsError(try BodyDecoder().decode(Data(truncated), contentEncoding: "gzip", limit: limit, url: "u"))
    }

    /// The deflate stream is intact but the trailer lies: libdeflate's path refuses the member
    /// and zlib's, which decides, calls it corrupt.
    func testGzipTrailerMismatchFailsAsCorrupt() throws {
        let member = try ZlibGzip.member(try fixture(glyphs))
        for offset in [member.count - 8, member.count - 4] {  // CRC-32, then ISIZE
            var body = member
            body[offset] ^= 0x01
            XCTAssertNil(body.withUnsafeBytes { GzipFastPath()!.member($0, deflateAt: 10, limit: limit) })
            XCTAssertThrowsError(try BodyDecoder().decode(body, contentEncoding: "gzip", limit: limit, url: "u")) { error in
                guard case HTTPError.corruptBody = error else { return XCTFail("\(error)") }
            }
        }
    }

    /// libdeflate takes exactly one member ending at the body's end; anything else is zlib's.
    func testFastPathTakesOnlyASingleMember() throws {
        let content = try fixture(glyphs)
        let member = try ZlibGzip.member(content)
        let single = member.withUnsafeBytes { GzipFastPath()!.member($0, deflateAt: 10, limit: limit) }
        XCTAssertEqual(single?.content, content)
        XCTAssertEqual(single?.deflate, 10..<(member.count - 8))
        for body in [member + member, member + Data([0, 0, 0, 0])] {
            XCTAssertNil(body.withUnsafeBytes { GzipFastPath()!.member($0, deflateAt: 10, limit: limit) })
        }
        XCTAssertNil(member.withUnsafeBytes { GzipFastPath()!.member($0, deflateAt: 10, limit: content.count - 1) })
    }

    func testConcatenatedMembersAreJoinedAndRecompressed() throws {
        let first = try fixture(glyphs), second = try fixture("styles/bright.json")
        let body = try ZlibGzip.member(first) + ZlibGzip.member(second)
        let decoded = try BodyDecoder().decode(body, contentEncoding: "gzip", limit: limit, url: "u")
        XCTAssertEqual(decoded.content, first + second)
        XCTAssertEqual(try decoded.stored.decoded(), first + second)
    }

    func testZlibDeflateIsKeptAsIs() throws {
        let content = try fixture(glyphs)
        let body = try Zlib.compress(content)
        let decoded = try BodyDecoder().decode(body, contentEncoding: "deflate", limit: limit, url: "u")
        XCTAssertEqual(decoded.content, content)
        XCTAssertEqual(decoded.stored, StoredData(bytes: body, compressed: true))
    }

    func testRawDeflateIsReframed() throws {
        let content = try fixture(glyphs)
        let raw = try ZlibGzip.deflate(content, windowBits: -15)
        let decoded = try BodyDecoder().decode(raw, contentEncoding: "deflate", limit: limit, url: "u")
        XCTAssertEqual(decoded.content, content)
        XCTAssertEqual(decoded.stored.bytes?.dropFirst(2).dropLast(4), raw[...])
        XCTAssertEqual(try decoded.stored.decoded(), content)
    }

    func testIdentityFollowsMapLibresRule() throws {
        let content = try fixture(glyphs)
        let decoded = try BodyDecoder().decode(content, contentEncoding: nil, limit: limit, url: "u")
        XCTAssertEqual(decoded.content, content)
        XCTAssertEqual(decoded.stored, StoredData.encoding(content))
        let tiny = Data("{}".utf8)
        XCTAssertEqual(try BodyDecoder().decode(tiny, contentEncoding: "identity", limit: limit, url: "u").stored,
                       StoredData(bytes: tiny, compressed: false))
    }

    func testUnknownEncodingAndOversizedBodiesAreRefused() throws {
        XCTAssertThrowsError(try BodyDecoder().decode(Data([1, 2]), contentEncoding: "br", limit: limit, url: "u")) {
            XCTAssertEqual($0 as? HTTPError, .unsupportedEncoding("br", url: "u"))
        }
        let body = try ZlibGzip.member(Data(count: 1 << 20))
        XCTAssertThrowsError(try BodyDecoder().decode(body, contentEncoding: "gzip", limit: 1 << 16, url: "u")) {
            XCTAssertEqual($0 as? HTTPError, .bodyTooLarge(limit: 1 << 16, url: "u"))
        }
    }
}

/// Real gzip and deflate output from zlib itself (deflateInit2 + deflateSetHeader).
enum ZlibGzip {
    static func member(_ content: Data, name: String? = nil, comment: String? = nil, extra: [UInt8]? = nil,
                       headerCRC: Bool = false) throws -> Data {
        var header = gz_header()
        var nameBytes = name.map { Array($0.utf8CString).map { UInt8(bitPattern: $0) } } ?? []
        var commentBytes = comment.map { Array($0.utf8CString).map { UInt8(bitPattern: $0) } } ?? []
        var extraBytes = extra ?? []
        return try nameBytes.withUnsafeMutableBufferPointer { namePointer in
            try commentBytes.withUnsafeMutableBufferPointer { commentPointer in
                try extraBytes.withUnsafeMutableBufferPointer { extraPointer in
                    header.name = name == nil ? nil : namePointer.baseAddress
                    header.comment = comment == nil ? nil : commentPointer.baseAddress
                    header.extra = extra == nil ? nil : extraPointer.baseAddress
                    header.extra_len = uInt(extraPointer.count)
                    header.hcrc = headerCRC ? 1 : 0
                    header.os = 3
                    return try deflate(content, windowBits: 31, header: &header)
                }
            }
        }
    }

    static func deflate(_ content: Data, windowBits: Int32, header: UnsafeMutablePointer<gz_header>? = nil) throws -> Data {
        var stream = z_stream()
        guard packfs_deflateInit2(&stream, 6, windowBits) == Z_OK else { throw Zlib.Failure.zlib(code: -1, operation: "init") }
        defer { deflateEnd(&stream) }
        if let header { deflateSetHeader(&stream, header) }
        var output = Data(count: Int(deflateBound(&stream, uLong(content.count))) + 64)
        let code = content.withUnsafeBytes { input in
            output.withUnsafeMutableBytes { out -> Int32 in
                stream.next_in = UnsafeMutablePointer(mutating: input.bindMemory(to: Bytef.self).baseAddress)
                stream.avail_in = uInt(input.count)
                stream.next_out = out.bindMemory(to: Bytef.self).baseAddress
                stream.avail_out = uInt(out.count)
                return CZlib.deflate(&stream, Z_FINISH)
            }
        }
        guard code == Z_STREAM_END else { throw Zlib.Failure.zlib(code: code, operation: "deflate") }
        output.count = Int(stream.total_out)
        return output
    }

    /// zlib's one-shot uncompress(): accepts only zlib framing and checks the Adler-32.
    static func uncompress(_ input: Data, size: Int) throws -> Data {
        var length = uLongf(size)
        var output = Data(count: size)
        let code = output.withUnsafeMutableBytes { out in
            input.withUnsafeBytes { inp in
                CZlib.uncompress(out.bindMemory(to: Bytef.self).baseAddress, &length,
                                 inp.bindMemory(to: Bytef.self).baseAddress, uLong(input.count))
            }
        }
        guard code == Z_OK else { throw Zlib.Failure.zlib(code: code, operation: "uncompress") }
        output.count = Int(length)
        return output
    }
}

/// gzip output of Python's gzip module (a separate gzip writer, with FNAME and MTIME set).
enum PythonGzip {
    static func compress(_ path: String) throws -> Data {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", """
            import gzip, io, sys, os
            buf = io.BytesIO()
            with gzip.GzipFile(filename=os.path.basename(sys.argv[1]), mode="wb", fileobj=buf, mtime=1) as f:
                f.write(open(sys.argv[1], "rb").read())
            sys.stdout.buffer.write(buf.getvalue())
            """, path]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return data
    }
}
