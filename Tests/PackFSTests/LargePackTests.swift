import Basics
import Foundation
@testable import PackFS
import PackStore
import TestSupport
import XCTest

/// A pack of 20,000 tiles in one z/x column set, written straight into the store: listings page
/// through it completely, quickly, with each entry once.
final class LargePackTests: PackFSTestCase {
    override class var databaseMode: OfflineDatabase.Mode? { .mount }
    func testTwentyThousandTilesListCompletelyAndQuickly() throws {
        let styleURL = "http://example.invalid/style.json"
        let template = "http://example.invalid/big/{z}/{x}/{y}.pbf"
        let style = #"{"version":8,"sources":{"big":{"type":"vector","tiles":["\#(template)"]}},"layers":[]}"#
        let pack = try database.createPack(
            name: "big", definition: RegionDefinition(
                styleURL: styleURL, area: .bounds(Bounds(west: 0, south: 0, east: 1, north: 1)), minZoom: 16, maxZoom: 16))
        let (z, columns, rows, x0, y0) = (16, 40, 500, 30_000, 20_000)
        try database.write { batch in
            let id = try batch.putResource(url: styleURL, kind: .style, data: .encoding(Data(style.utf8)), headers: CacheHeaders())
            try batch.link(resource: id, to: pack.id)
            for x in x0..<(x0 + columns) {
                for y in y0..<(y0 + rows) {
                    let key = TileKey(urlTemplate: template, pixelRatio: 1, z: z, x: x, y: y)
                    try batch.link(tile: try batch.putTile(key, data: .encoding(Data("tile \(x)/\(y)".utf8)), headers: CacheHeaders()), to: pack.id)
                }
            }
        }
        let fs = PackFilesystem(database: database, mountpoint: "/mnt")
        let walker = TreeWalker(fs: fs)
        let started = Date()
        let zoom = try walker.lookup("packs/big/\(z)").attributes.inode
        let xs = try walker.list(zoom, limit: 7).dropFirst(2)
        XCTAssertEqual(xs.map(\.name), (x0..<(x0 + columns)).map(String.init))
        var count = 0
        for column in xs {
            let ys = try walker.list(column.inode, limit: 128).dropFirst(2)
            XCTAssertEqual(ys.map(\.name), (y0..<(y0 + rows)).map { "\($0).pbf" })
            count += ys.count
        }
        let elapsed = Date().timeIntervalSince(started)
        XCTAssertEqual(count, columns * rows)
        XCTAssertLessThan(elapsed, 5, "listing \(count) tiles took \(elapsed) s")
        let tile = try walker.lookup("packs/big/\(z)/\(x0 + 7)/\(y0 + 300).pbf").attributes
        XCTAssertEqual(try walker.read(tile.inode, size: tile.size), Data("tile \(x0 + 7)/\(y0 + 300)".utf8))
        print("listed \(count) tiles in \(String(format: "%.3f", elapsed)) s")
    }
}
