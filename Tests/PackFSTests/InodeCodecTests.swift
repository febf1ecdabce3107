@testable import PackFS
import PackStore
import XCTest

/// Every kind of node survives encode -> decode, at the edges of each field.
final class InodeCodecTests: XCTestCase {
    let regions = [RegionID(1), RegionID(2), RegionID(InodeCodec.maxRegion)]
    let refs = [
        SourceRef(index: 0, primary: false), SourceRef(index: 0, primary: true),
        SourceRef(index: 63, primary: false), SourceRef(index: 63, primary: true),
    ]

    func nodes() -> [Node] {
        var nodes: [Node] = [.root, .status, .packs, .packList, .rejection(0), .rejection(UInt32.max)]
        for serial in [UInt32(0), 1, UInt32.max] {
            nodes += [.draft(serial), .scratch(serial), .patch(serial), .webFile(serial)]
        }
        for region in regions {
            nodes += PackPart.allCases.map { .pack(region, $0) }
            for ref in refs where !ref.primary {
                nodes += [.source(region, ref, .directory), .source(region, ref, .tileJSON)]
            }
            for ref in refs {
                for z in [0, 1, 14, 24, 31] {
                    nodes.append(.zoom(region, ref, z: z))
                    for x in Set([0, 1, (1 << min(z, 24)) - 1, InodeCodec.maxColumn]) {
                        nodes.append(.column(region, ref, z: z, x: x))
                    }
                }
            }
            for row in [0, 1, Int64(Int32.max), InodeCodec.maxRow] {
                nodes.append(.fontStack(region, ResourceID(rawValue: row)))
                // Every version's tag (RowTag): 0, then 1-4 for versions 1-4.
                for version in Int64(0)...4 {
                    let tag = RowTag(version: version)
                    nodes += [.tile(region, TileID(rawValue: row), tag), .resource(region, ResourceID(rawValue: row), tag)]
                }
            }
        }
        return nodes
    }

    func testEveryKindRoundTripsAndNoTwoNodesShareAnInode() throws {
        var seen: [Inode: Node] = [:]
        for node in nodes() {
            let inode = try InodeCodec.encode(node)
            XCTAssertNotEqual(inode.rawValue, 0, "\(node)")
            XCTAssertEqual(InodeCodec.decode(inode), node, "\(node) -> \(inode)")
            if let other = seen.updateValue(node, forKey: inode), other != node {
                XCTFail("\(node) and \(other) share \(inode)")
            }
        }
        XCTAssertEqual(try InodeCodec.encode(.root), .root)
    }

    /// Versions take the four tags in turn; the version before a switch never shares the tag of
    /// the one after it, and a row no switch changed keeps the plain tile and resource kinds.
    func testRowVersionsTakeFourTagsInTurn() throws {
        XCTAssertEqual((1...9).map { RowTag(version: $0).raw }, [1, 2, 3, 4, 1, 2, 3, 4, 1])
        for version in Int64(1)...9 { XCTAssertNotEqual(RowTag(version: version), RowTag(version: version - 1)) }
        XCTAssertTrue(RowTag(version: 5).names(1))
        XCTAssertFalse(RowTag.initial.names(4))
        let plain = try InodeCodec.encode(.tile(RegionID(3), TileID(rawValue: 9), .initial))
        XCTAssertEqual(plain.rawValue >> 60, 5)
        XCTAssertEqual(try InodeCodec.encode(.resource(RegionID(3), ResourceID(rawValue: 9), RowTag(version: 4))).rawValue >> 60, 15)
        XCTAssertEqual(InodeCodec.region(of: try InodeCodec.encode(.tile(RegionID(3), TileID(rawValue: 9), RowTag(version: 2)))), RegionID(3))
    }

    func testNumbersThatDoNotFitAreRefusedNotTruncated() {
        let big = RegionID(InodeCodec.maxRegion + 1)
        XCTAssertThrowsError(try InodeCodec.encode(.pack(big, .directory)))
        XCTAssertThrowsError(try InodeCodec.encode(.tile(RegionID(1), TileID(rawValue: InodeCodec.maxRow + 1), .initial)))
        XCTAssertThrowsError(try InodeCodec.encode(.zoom(RegionID(1), SourceRef(index: 64, primary: false), z: 0)))
        XCTAssertThrowsError(try InodeCodec.encode(.column(RegionID(1), refs[0], z: 24, x: 1 << 24)))
    }

    func testNumbersTheCodecNeverMakesDecodeToNothing() {
        for raw: UInt64 in [0, 5, 6 << 32, 1 << 60 | 99, 2 << 60 | 1 << 35, 1 << 36, 2 << 60 | 1 << 24, 3 << 60 | 5] {
            XCTAssertNil(InodeCodec.decode(Inode(rawValue: raw)), String(raw, radix: 16))
        }
    }
}
