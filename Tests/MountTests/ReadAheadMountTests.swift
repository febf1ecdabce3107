import Basics
import Foundation
import TestSupport
import XCTest

/// A reader walking a column tile after tile finds the next tiles read ahead (`ReadAhead`), byte for
/// byte; a process that only stats tiles, or reads them out of order, gets nothing read ahead; and by
/// default (`-o read_ahead=off`) nothing is.
final class ReadAheadMountTests: DaemonMountTestCase {
    override class func makeServer() throws -> TestServer? { nil }

    static let column = 0..<24

    /// Tile 16/x/y holds these bytes (raw, `compressed = 0`).
    static func content(_ y: Int) -> Data { Data(String(format: "read-ahead tile %05d ", y).utf8 + Array(repeating: UInt8(y), count: 3000)) }

    func testAReaderWalkingAColumnFindsTheNextTilesReadAhead() throws {
        try makeAppDatabase()
        // `on`: the machine's load (other tests) must not decide what this test sees.
        try mountPackFS(["-o", "read_ahead=on"])
        // A stat walk (lookups in order, nothing read) and reads out of order read nothing ahead.
        for y in Self.column { XCTAssertNotNil(try? FileManager.default.attributesOfItem(atPath: "\(packs)/one/16/100/\(y).pbf")) }
        let column = "\(packs)/one/16/101"
        for y in [20, 13, 11, 17, 15] { XCTAssertEqual(FileManager.default.contents(atPath: "\(column)/\(y).pbf"), Self.content(y)) }
        XCTAssertEqual(readAhead()?["tiles"], .number(0), "\(String(describing: readAhead()))")

        // Tiles 0 and 1 read in turn: 2 and 3 are read ahead (on the daemon's own thread: waited for).
        for y in 0...1 { XCTAssertEqual(FileManager.default.contents(atPath: "\(column)/\(y).pbf"), Self.content(y)) }
        XCTAssertTrue(eventually(timeout: 30) { (self.readAhead()?["tiles"]?.number ?? 0) >= 2 }, "\(String(describing: readAhead()))")
        for y in 2...5 { XCTAssertEqual(FileManager.default.contents(atPath: "\(column)/\(y).pbf"), Self.content(y)) }
        let figures = try XCTUnwrap(readAhead())
        XCTAssertGreaterThanOrEqual(figures["used"]?.number ?? 0, 1, "\(figures)")
        XCTAssertLessThanOrEqual(figures["used"]?.number ?? 0, figures["tiles"]?.number ?? 0, "\(figures)")
        unmountPackFS()
    }

    func testByDefaultNothingIsReadAheadAndAnUnknownModeIsRefusedInOneLine() throws {
        try makeAppDatabase()
        let refused = try packfs(["mount", db, mount.path, "-o", "read_ahead=maybe"])
        XCTAssertNotEqual(refused.status, 0, refused.text)
        XCTAssertTrue(refused.text.contains("read_ahead=maybe"), refused.text)
        XCTAssertFalse(mount.isMounted)
        try mountPackFS()  // read_ahead=off by default
        for y in Self.column { XCTAssertEqual(FileManager.default.contents(atPath: "\(packs)/one/16/101/\(y).pbf"), Self.content(y)) }
        XCTAssertEqual(readAhead(), .object(["tiles": .number(0), "used": .number(0)]))
        unmountPackFS()
    }

    private func readAhead() -> JSONValue? {
        FileManager.default.contents(atPath: "\(mount.path)/status.json").flatMap(JSONValue.parse)?["read_ahead"]
    }

    /// Pack "one": columns 16/100 and 16/101, rows 0-23, written with plain SQL as an app would.
    private func makeAppDatabase() throws {
        let definition = MapLibreSideFile.definition(style: "http://127.0.0.1:1/style.json")
        let rows = [100, 101].flatMap { x in
            Self.column.map { y in
                "('http://127.0.0.1:1/{z}/{x}/{y}.pbf', 1, 16, \(x), \(y), x'\(Self.content(y).map { String(format: "%02x", $0) }.joined())', 0, 1)"
            }
        }
        try MapLibreSideFile.create(db, rows: """
            INSERT INTO regions (id, definition, description) VALUES (1, '\(definition)', CAST('{"name":"one"}' AS BLOB));
            INSERT INTO tiles (url_template, pixel_ratio, z, x, y, data, compressed, accessed) VALUES
              \(rows.joined(separator: ",\n  "));
            INSERT INTO region_tiles (region_id, tile_id) SELECT 1, id FROM tiles;
            """)
    }
}
