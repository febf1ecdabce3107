import Basics
import Foundation
@testable import PMTilesFormat
import PackStore
import XCTest

@testable import Interchange

/// The PMTiles v3 format pieces against the spec and the reference implementations' vectors:
/// tile ids, varints, directories, the header, gzip framing.
final class PMTilesFormatTests: XCTestCase {
    func id(_ z: Int, _ x: Int, _ y: Int) throws -> UInt64 { try PMTilesTileID(z: z, x: x, y: y).rawValue }

    /// The spec's table (section 4.1), which the Python, JS, C++ and Go implementations test too.
    func testTheSpecsTileIDs() throws {
        let table: [(Int, Int, Int, UInt64)] = [
            (0, 0, 0, 0), (1, 0, 0, 1), (1, 0, 1, 2), (1, 1, 1, 3), (1, 1, 0, 4), (2, 0, 0, 5), (12, 3423, 1763, 19_078_479),
        ]
        for (z, x, y, expected) in table {
            XCTAssertEqual(try id(z, x, y), expected, "\(z)/\(x)/\(y)")
            let tile = try PMTilesTileID(rawValue: expected).tile()
            XCTAssertEqual([tile.z, tile.x, tile.y], [z, x, y])
        }
    }

    /// Deep zooms, computed with the reference Python implementation (pmtiles.tile.zxy_to_tileid).
    func testDeepZoomIDsMatchTheReferenceImplementation() throws {
        let vectors: [(Int, Int, Int, UInt64)] = [
            (14, 9099, 4628, 318_161_098), (20, 524_287, 349_525, 531_430_620_091),
            (24, 16_777_215, 0, 375_299_968_947_540), (24, 9_323_456, 4_721_123, 333_615_613_436_250),
            (31, 2_147_483_647, 2_147_483_647, 4_611_686_018_427_387_903),
            (31, 0, 2_147_483_647, 3_074_457_345_618_258_602),
            (31, 1_234_567_890, 987_654_321, 5_369_150_126_902_342_146),
        ]
        for (z, x, y, expected) in vectors {
            XCTAssertEqual(try id(z, x, y), expected, "\(z)/\(x)/\(y)")
            let tile = try PMTilesTileID(rawValue: expected).tile()
            XCTAssertEqual([tile.z, tile.x, tile.y], [z, x, y])
        }
    }

    /// Every tile of zooms 0-8 comes back from its id, and the ids are exactly 0..<count: the
    /// curves of successive zooms are laid end to end with no gap.
    func testEveryTileOfTheFirstZoomsRoundTrips() throws {
        var ids: [UInt64] = []
        for z in 0...8 {
            for x in 0..<(1 << z) {
                for y in 0..<(1 << z) {
                    let value = try id(z, x, y)
                    let tile = try PMTilesTileID(rawValue: value).tile()
                    XCTAssertTrue(tile == (z, x, y), "\(z)/\(x)/\(y) came back as \(tile)")
                    ids.append(value)
                }
            }
        }
        XCTAssertEqual(ids.sorted(), Array(0..<UInt64(ids.count)))
    }

    /// The reference tests' corners of every zoom to 31, and their invalid inputs.
    func testCornersOfEveryZoomAndTheInvalidOnes() throws {
        for z in 0...31 {
            let last = (1 << z) - 1
            for (x, y) in [(0, 0), (last, 0), (0, last), (last, last)] {
                let tile = try PMTilesTileID(rawValue: id(z, x, y)).tile()
                XCTAssertTrue(tile == (z, x, y), "\(z)/\(x)/\(y)")
            }
        }
        XCTAssertThrowsError(try PMTilesTileID(rawValue: UInt64.max).tile())
        XCTAssertThrowsError(try id(32, 0, 0))
        XCTAssertThrowsError(try id(0, 1, 1))
        XCTAssertThrowsError(try id(31, 1 << 31, 1 << 31))
        XCTAssertThrowsError(try id(-1, 0, 0))
        XCTAssertThrowsError(try id(3, -1, 0))
    }

    /// The Python implementation's varint vectors, and the edges of 64 bits.
    func testVarints() throws {
        var data = Data()
        for value: UInt64 in [0, 1, 127, 624_485, UInt64.max] { data.appendVarint(value) }
        XCTAssertEqual([UInt8](data.prefix(6)), [0x00, 0x01, 0x7F, 0xE5, 0x8E, 0x26])
        XCTAssertEqual(data.count, 6 + 10)
        var reader = VarintReader(data)
        for value: UInt64 in [0, 1, 127, 624_485, UInt64.max] { XCTAssertEqual(try reader.next(), value) }
        XCTAssertThrowsError(try reader.next()) { XCTAssertTrue("\($0)".contains("cut short"), "\($0)") }
        var wide = VarintReader(Data([0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x02]))
        XCTAssertThrowsError(try wide.next()) { XCTAssertTrue("\($0)".contains("exceeds 64 bits"), "\($0)") }
        var long = VarintReader(Data(repeating: 0x80, count: 11))
        XCTAssertThrowsError(try long.next())
    }

    /// Column order, id deltas, the "0 means contiguous" offsets and back references: the bytes
    /// the Python implementation's serialize_directory writes (before gzip) for the same entries.
    func testDirectoryBytesMatchTheReferenceImplementation() throws {
        let entries = [
            PMTilesEntry(tileID: 0, offset: 0, length: 10, runLength: 1),
            PMTilesEntry(tileID: 1, offset: 10, length: 20, runLength: 2),
            PMTilesEntry(tileID: 3, offset: 0, length: 10, runLength: 1),
            PMTilesEntry(tileID: 300, offset: 30, length: 5, runLength: 0),
            PMTilesEntry(tileID: 100_000, offset: 35, length: 1000, runLength: 7),
        ]
        let encoded = PMTilesDirectory.encode(entries)
        XCTAssertEqual(encoded.map { String(format: "%02x", $0) }.joined(), "05000102a902f48a0601020100070a140a05e8070100011f00")
        XCTAssertEqual(try PMTilesDirectory.decode(encoded), entries)
    }

    func testDamagedDirectoriesAreErrors() {
        let cases: [([UInt8], String)] = [
            ([0x05, 0x00], "a directory of 5 entries in 1 bytes"),
            ([0x01, 0x00, 0x01, 0x00, 0x01], "length 0"),
            ([0x01, 0x00, 0x01, 0x01, 0x00], "offset 0, which means"),
            ([0x01, 0x00, 0x01, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F, 0x01], "exceeds 32 bits"),
        ]
        for (bytes, words) in cases {
            XCTAssertThrowsError(try PMTilesDirectory.decode(Data(bytes))) {
                XCTAssertTrue("\($0)".contains(words), "\(bytes): \($0)")
            }
        }
    }

    /// A root too large for the first 16 KiB becomes leaves of consecutive entries; the root
    /// then points at each, in order, and the leaves hold every entry once.
    func testLargeDirectoriesSplitIntoLeaves() throws {
        var entries: [PMTilesEntry] = []
        var offset: UInt64 = 0
        var random: UInt64 = 88_172_645_463_325_252
        for index in 0..<50_000 {
            // xorshift64: lengths without a period for gzip to find.
            random ^= random << 13
            random ^= random >> 7
            random ^= random << 17
            let length = UInt32(20 + random % 2000)
            entries.append(PMTilesEntry(tileID: UInt64(index * 3), offset: offset, length: length, runLength: 1 + UInt32(index % 3)))
            offset += UInt64(length)
        }
        let small = try PMTilesDirectories(Array(entries.prefix(100)), compress: Zlib.gzip)
        XCTAssertEqual(small.leafCount, 0)
        XCTAssertTrue(small.leaves.isEmpty)
        let large = try PMTilesDirectories(entries, compress: Zlib.gzip)
        XCTAssertLessThanOrEqual(large.root.count, 16_384 - 127)
        XCTAssertEqual(large.leafCount, 13)
        let pointers = try PMTilesDirectory.decode(Zlib.decompress(large.root))
        XCTAssertTrue(pointers.allSatisfy(\.isLeaf))
        var back: [PMTilesEntry] = []
        for pointer in pointers {
            let leaf = large.leaves.subdata(in: Int(pointer.offset)..<Int(pointer.offset) + Int(pointer.length))
            let leafEntries = try PMTilesDirectory.decode(Zlib.decompress(leaf))
            XCTAssertEqual(leafEntries.first?.tileID, pointer.tileID)
            back += leafEntries
        }
        XCTAssertEqual(back, entries)
    }

    /// 20,000 regular entries compress into a few hundred bytes, but a root that long would be
    /// parsed whole before every first tile: they go to leaves all the same.
    func testManyEntriesGoToLeavesEvenWhenTheyWouldFit() throws {
        let entries = (0..<20_000).map { PMTilesEntry(tileID: UInt64($0), offset: UInt64($0) * 100, length: 100, runLength: 1) }
        XCTAssertLessThan(try Zlib.gzip(PMTilesDirectory.encode(entries)).count, PMTilesDirectories.rootLimit)
        let directories = try PMTilesDirectories(entries, compress: Zlib.gzip)
        XCTAssertEqual(directories.leafCount, 5)
        let exactly = try PMTilesDirectories(Array(entries.prefix(16_384)), compress: Zlib.gzip)
        XCTAssertEqual(exactly.leafCount, 0)
    }

    /// The header's 127 bytes, field by field as the Python implementation's serialize_header
    /// writes them for the same values.
    func testHeaderBytesMatchTheReferenceImplementation() throws {
        var header = PMTilesHeader()
        header.rootDirectory = .init(offset: 127, length: 1000)
        header.metadata = .init(offset: 1127, length: 300)
        header.leafDirectories = .init(offset: 1427, length: 0)
        header.tileData = .init(offset: 1427, length: 99_999)
        (header.addressedTiles, header.tileEntries, header.tileContents) = (25, 20, 19)
        header.clustered = true
        (header.internalCompression, header.tileCompression, header.tileType) = (.gzip, .gzip, .mvt)
        (header.minZoom, header.maxZoom, header.centerZoom) = (0, 14, 12)
        header.minPosition = Position(longitude: 24.9351766, latitude: 60.1641551)
        header.maxPosition = Position(longitude: 24.9534132, latitude: 60.1791074)
        header.center = Position(longitude: 24.9442949, latitude: 60.1716312)
        let expected = """
            504d54696c6573037f00000000000000e80300000000000067040000000000002c01000000000000930500000000\
            0000000000000000000093050000000000009f86010000000000190000000000000014000000000000001300000000\
            00000001020201000e56cedc0e4f52dc23b496df0e629ade230c8532de0e5876dd23
            """
        XCTAssertEqual(header.encoded.count, 127)
        XCTAssertEqual(header.encoded.map { String(format: "%02x", $0) }.joined(), expected)
        XCTAssertEqual(try PMTilesHeader(decoding: header.encoded), header)
    }

    func testBadHeadersSayWhichField() {
        let good = PMTilesHeader().encoded
        func changed(_ at: Int, _ byte: UInt8) -> Data {
            var data = good
            data[at] = byte
            return data
        }
        let cases: [(Data, String)] = [
            (good.prefix(100), "shorter than the 127-byte"), (changed(0, 0x51), "no PMTiles magic"),
            (changed(7, 2), "version 2"), (changed(97, 9), "internal compression 9"),
            (changed(98, 5), "tile compression 5"), (changed(99, 7), "tile type 7"),
        ]
        for (data, words) in cases {
            XCTAssertThrowsError(try PMTilesHeader(decoding: data)) { XCTAssertTrue("\($0)".contains(words), "\($0)") }
        }
    }

    /// gzip members: the standard CRC-32 check value in the trailer, a fixed header (no time
    /// stamp), and zlib's own gzip decoder reading it back.
    func testGzipMembers() throws {
        let check = try Zlib.gzip(Data("123456789".utf8))
        XCTAssertEqual([UInt8](check.dropLast(4).suffix(4)), [0x26, 0x39, 0xF4, 0xCB], "CRC-32 check value 0xCBF43926")
        let text = Data((0..<5000).map { UInt8(truncatingIfNeeded: $0 * $0 % 251) })
        let member = try Zlib.gzip(text)
        XCTAssertEqual([UInt8](member.prefix(10)), [0x1F, 0x8B, 8, 0, 0, 0, 0, 0, 0, 0xFF])
        XCTAssertEqual(try Zlib.inflate(member, windowBits: 31), text)
        XCTAssertEqual(try Zlib.decompress(Zlib.gzip(Data())), Data())
        XCTAssertThrowsError(try Zlib.decompress(Data(member.dropLast(3))))
    }
}
