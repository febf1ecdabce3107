import Foundation
import PMTilesFormat
import PackStore
import TestSupport
import XCTest

@testable import Interchange

/// PMTilesWriter and PMTilesReader on real files: clustering, shared contents, run-length
/// entries, leaf directories, and damaged archives.
final class PMTilesArchiveTests: PackFSTestCase {
    var path: String { temp.path("out.pmtiles") }

    typealias Tiles = [String: Data]

    /// Writes `tiles` ("z/x/y": bytes) in the order given.
    @discardableResult
    func write(_ tiles: [(String, Data)]) throws -> PMTilesWriter.Summary {
        let writer = try PMTilesWriter(path: path)
        for (key, data) in tiles {
            let parts = key.split(separator: "/").compactMap { Int($0) }
            try writer.add(z: parts[0], x: parts[1], y: parts[2], data: data)
        }
        var header = PMTilesHeader()
        header.tileType = .png
        header.centerZoom = 9
        return try writer.finish(header: header, metadata: .object(["name": .string("t")]))
    }

    func readAll(_ reader: PMTilesReader) throws -> (tiles: Tiles, order: [UInt64]) {
        var tiles: Tiles = [:]
        var order: [UInt64] = []
        try reader.forEachTile { z, x, y, data in
            XCTAssertNil(tiles.updateValue(data, forKey: "\(z)/\(x)/\(y)"), "\(z)/\(x)/\(y) twice")
            order.append(try PMTilesTileID(z: z, x: x, y: y).rawValue)
        }
        return (tiles, order)
    }

    /// Zoom 2 all one content (16 consecutive ids: one run), zoom 3 alternating two contents,
    /// given in reverse order: the archive is clustered, each content stored once.
    func testSharedContentsAndRuns() throws {
        var tiles: [(String, Data)] = [("0/0/0", Data("root".utf8)), ("1/1/0", Data("one".utf8))]
        for x in 0..<4 { for y in 0..<4 { tiles.append(("2/\(x)/\(y)", Data("sea".utf8))) } }
        for x in 0..<8 { for y in 0..<8 { tiles.append(("3/\(x)/\(y)", Data((x + y) % 2 == 0 ? "a".utf8 : "bb".utf8))) } }
        let summary = try write(tiles.reversed())
        XCTAssertEqual(summary.addressedTiles, 2 + 16 + 64)
        XCTAssertEqual(summary.contents, 5)
        XCTAssertEqual(summary.leafDirectories, 0)
        let reader = try PMTilesReader(path: path)
        let header = reader.header
        XCTAssertEqual(header.addressedTiles, 82)
        XCTAssertEqual(header.tileContents, 5)
        XCTAssertEqual(header.tileEntries, UInt64(summary.entries))
        XCTAssertTrue(header.clustered)
        XCTAssertEqual([header.minZoom, header.maxZoom, header.centerZoom], [0, 3, 3])
        XCTAssertEqual(header.rootDirectory.offset, 127)
        XCTAssertEqual(header.metadata.offset, header.rootDirectory.offset + header.rootDirectory.length)
        XCTAssertEqual(header.tileData.length, UInt64("rootoneseaabb".utf8.count))
        XCTAssertEqual(try reader.metadata(), .object(["name": .string("t")]))
        let entries = try reader.rootEntries()
        XCTAssertEqual(entries.first { $0.tileID == 5 }?.runLength, 16, "zoom 2 is one run")
        XCTAssertEqual(entries.count, summary.entries)
        // Clustered: contents appear in the data section in the order of their first tile.
        XCTAssertEqual(entries.prefix(3).map(\.offset), [0, 4, 7])
        let (read, order) = try readAll(reader)
        XCTAssertEqual(read, Dictionary(uniqueKeysWithValues: tiles))
        XCTAssertEqual(order, order.sorted())
        XCTAssertEqual(try reader.tile(z: 3, x: 2, y: 1), Data("bb".utf8))
        XCTAssertEqual(try reader.tile(z: 2, x: 3, y: 3), Data("sea".utf8))
        XCTAssertNil(try reader.tile(z: 1, x: 0, y: 0))
        XCTAssertNil(try reader.tile(z: 4, x: 0, y: 0))
    }

    /// 60,000 tiles at zoom 9, of lengths as irregular as real tiles' (a root of regular
    /// lengths compresses into 16 KiB and needs no leaves).
    static func gridTiles() -> [(String, Data)] {
        var tiles: [(String, Data)] = []
        var random: UInt64 = 0x9E37_79B9_7F4A_7C15
        for x in 0..<300 {
            for y in 0..<200 {
                random ^= random << 13
                random ^= random >> 7
                random ^= random << 17
                tiles.append(("9/\(x)/\(y)", Data("tile \(x) \(y) ".utf8) + Data(count: Int(random % 3000))))
            }
        }
        return tiles
    }

    /// The root would outgrow 16 KiB, so leaves hold the entries; every tile reads back, by
    /// walking and by lookup.
    func testLargeArchivesUseLeafDirectories() throws {
        let tiles = Self.gridTiles()
        let summary = try write(tiles)
        XCTAssertGreaterThan(summary.leafDirectories, 0)
        let reader = try PMTilesReader(path: path)
        XCTAssertGreaterThan(reader.header.leafDirectories.length, 0)
        XCTAssertLessThanOrEqual(reader.header.rootDirectory.offset + reader.header.rootDirectory.length, 16_384)
        XCTAssertTrue(try reader.rootEntries().allSatisfy(\.isLeaf))
        XCTAssertEqual(try readAll(reader).tiles, Dictionary(uniqueKeysWithValues: tiles))
        for (key, data) in tiles.enumerated().filter({ $0.offset % 997 == 0 }).map(\.element) {
            let parts = key.split(separator: "/").compactMap { Int($0) }
            XCTAssertEqual(try reader.tile(z: parts[0], x: parts[1], y: parts[2]), data, key)
        }
    }

    func testTheWriterRefusesWhatAnArchiveCannotHold() throws {
        XCTAssertThrowsError(try write([])) { XCTAssertTrue("\($0)".contains("no tiles"), "\($0)") }
        XCTAssertThrowsError(try write([("1/0/0", Data("a".utf8)), ("1/0/0", Data("b".utf8))])) {
            XCTAssertTrue("\($0)".contains("tile 1/0/0 was given twice"), "\($0)")
        }
        XCTAssertThrowsError(try write([("1/0/0", Data())])) { XCTAssertTrue("\($0)".contains("0 bytes"), "\($0)") }
        XCTAssertThrowsError(try write([("1/2/0", Data("a".utf8))])) { XCTAssertTrue("\($0)".contains("outside"), "\($0)") }
        XCTAssertFalse(FileManager.default.fileExists(atPath: path), "no half-written archive")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: temp.url.path), [], "no scratch file left")
    }

    /// Damage of every kind is an error that names the file and what is wrong.
    func testDamagedArchivesAreErrors() throws {
        try write(Self.gridTiles())
        let good = try Data(contentsOf: URL(fileURLWithPath: path))
        let header = try PMTilesHeader(decoding: good)
        XCTAssertGreaterThan(header.leafDirectories.length, 0)
        func damaged(_ change: (inout Data) -> Void) throws -> String {
            var data = good
            change(&data)
            try data.write(to: URL(fileURLWithPath: path))
            return path
        }
        let root = Int(header.rootDirectory.offset)
        let leaves = Int(header.leafDirectories.offset)
        let cases: [(String, (inout Data) -> Void)] = [
            ("lies past the end of the file", { $0 = $0.prefix(Int(header.tileData.offset) + 10) }),
            ("shorter than the 127-byte", { $0 = $0.prefix(60) }),
            ("root directory does not inflate", { $0[root + 12] ^= 0xFF }),
            ("does not inflate", { $0[leaves + 30] ^= 0xFF }),
            ("internal compression brotli is not supported", { $0[97] = 3 }),
        ]
        for (words, change) in cases {
            let file = try damaged(change)
            XCTAssertThrowsError(try readAll(PMTilesReader(path: file))) {
                XCTAssertTrue("\($0)".contains("out.pmtiles: ") && "\($0)".contains(words), "\(words): \($0)")
            }
        }
    }
}

extension PMTilesReader {
    /// The bytes of tile z/x/y as the archive holds them, found by the directories' search (the
    /// last entry at or before its id, into the leaves); nil when it holds none. Only these tests
    /// look tiles up one at a time: an import walks them all (`forEachTile`).
    func tile(z: Int, x: Int, y: Int) throws -> Data? {
        let id = try PMTilesTileID(z: z, x: x, y: y).rawValue
        var entries = try rootEntries()
        for _ in 0..<Self.maxDepth {
            guard let entry = entries.last(where: { $0.tileID <= id }) else { return nil }
            if !entry.isLeaf {
                return id - entry.tileID < UInt64(entry.runLength) ? try tileBytes(entry) : nil
            }
            entries = try leafEntries(entry)
        }
        throw InterchangeError.damaged(path, detail: "leaf directories nest deeper than \(Self.maxDepth) levels")
    }
}
