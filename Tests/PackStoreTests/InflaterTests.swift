import Basics
import Foundation
import PackStore
import XCTest

/// The reused inflater answers as `Zlib.decompress` does, value after value.
final class InflaterTests: XCTestCase {
    func testValuesInTurnInflateAsZlibDecompressDoes() throws {
        var generator = SystemRandomNumberGenerator()
        let noise = Data((0..<300_000).map { _ in UInt8.random(in: 0...255, using: &generator) })
        let contents = [Data("small".utf8), Data(repeating: 7, count: 1 << 20), noise, Data(), Data("again".utf8)]
        let inflater = Inflater()
        for content in contents {
            for packed in [try Zlib.compress(content), try Zlib.gzip(content)] {
                let inflated = try packed.withUnsafeBytes { input in try inflater.withInflated(input) { Data($0) } }
                XCTAssertEqual(inflated, try Zlib.decompress(packed))
                XCTAssertEqual(inflated, content)
            }
        }
    }

    /// The one-call inflate of every cold tile read: its first buffer stays under the daemon's mmap
    /// threshold, so contents larger than that first guess, or far more compressible, take a second try.
    func testWholeInflateGivesEveryContentWholeWhateverItsFirstGuess() throws {
        var generator = SystemRandomNumberGenerator()
        let noise = { (count: Int) in Data((0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }) }
        let halfNoise = noise(100_000) + Data(repeating: 3, count: 200_000)
        let contents = [noise(300_000), halfNoise, noise(255 * 1024), Data(repeating: 7, count: 1 << 20), Data("tile".utf8)]
        for content in contents {
            for packed in [try Zlib.compress(content), try Zlib.gzip(content)] {
                XCTAssertEqual(WholeInflate.decompress(packed, limit: Zlib.maxInflatedBytes), content)
            }
        }
        XCTAssertNil(WholeInflate.decompress(try Zlib.compress(halfNoise), limit: 299_999))
    }

    func testWhatDoesNotInflateThrowsAndTheLimitHolds() throws {
        let inflater = Inflater()
        let packed = try Zlib.gzip(Data(repeating: 1, count: 100_000))
        let garbage = Data("not deflate at all".utf8)
        XCTAssertThrowsError(try garbage.withUnsafeBytes { try inflater.withInflated($0) { $0.count } })
        XCTAssertThrowsError(try packed.prefix(20).withUnsafeBytes { try inflater.withInflated($0) { $0.count } })
        XCTAssertThrowsError(try packed.withUnsafeBytes { try inflater.withInflated($0, limit: 50_000) { $0.count } }) { error in
            guard case Zlib.Failure.tooLarge = error else { return XCTFail("\(error)") }
        }
        XCTAssertEqual(try packed.withUnsafeBytes { try inflater.withInflated($0) { $0.count } }, 100_000)
    }
}
