import Basics
import Foundation
import PackStore
import TestSupport
import XCTest

/// MD5 against RFC 1321's test suite (appendix A.5) and `md5sum`, fed whole and in uneven pieces.
final class MD5Tests: PackFSTestCase {
    func testRFC1321Vectors() {
        let vectors = [
            ("", "D41D8CD98F00B204E9800998ECF8427E"),
            ("a", "0CC175B9C0F1B6A831C399E269772661"),
            ("abc", "900150983CD24FB0D6963F7D28E17F72"),
            ("message digest", "F96B697D7CB7938D525A2F31AAF161D0"),
            ("abcdefghijklmnopqrstuvwxyz", "C3FCD3D76192E4007DFB496CCA67E13B"),
            ("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789", "D174AB98D277D9F5A5611C2C9F419D9F"),
            (String(repeating: "1234567890", count: 8), "57EDF4A22BE3C955AC49DA2E2107B67A"),
        ]
        for (text, digest) in vectors {
            var md5 = MD5()
            md5.update(text)
            XCTAssertEqual(md5.hex(), digest, text)
        }
    }

    func testPiecesOfAnySizeGiveTheDigestOfTheWhole() throws {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<100_000).map { _ in UInt8.random(in: 0...255, using: &generator) }
        var whole = MD5()
        whole.update(bytes)
        var pieces = MD5()
        var offset = 0
        for size in [0, 1, 63, 64, 65, 127, 1000, 4096] + Array(repeating: 7919, count: 20) where offset < bytes.count {
            let end = min(bytes.count, offset + size)
            pieces.update(bytes[offset..<end])
            offset = end
        }
        pieces.update(bytes[offset...])
        XCTAssertEqual(pieces.hex(), whole.hex())
        let file = temp.url.appendingPathComponent("bytes")
        try Data(bytes).write(to: file)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/md5sum")
        process.arguments = [file.path]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        process.waitUntilExit()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        XCTAssertEqual(output.prefix(32).uppercased(), whole.hex())
    }
}
