import Basics
import Foundation
@testable import Interchange
import PackStore
import TestSupport
import XCTest

/// A phone-sized side file: 50,000 tiles in two overlapping packs, 5,000 of them already in the
/// target with older data. Prints the merge's time (the copy, its check and the transaction).
final class MergeScaleTests: MergeTestCase {
    func testFiftyThousandTilesMergeInOneTransaction() throws {
        try MapLibreSideFile.create(sidePath, rows: """
            INSERT INTO regions (id, definition, description) VALUES
              (1, '\(MapLibreSideFile.definition(style: Self.style, maxZoom: 14))', CAST('{"name":"a"}' AS BLOB)),
              (2, '\(MapLibreSideFile.definition(style: Self.style, maxZoom: 15))', CAST('{"name":"b"}' AS BLOB));
            WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 49999)
            INSERT INTO tiles (url_template, pixel_ratio, z, x, y, modified, data, compressed, accessed)
              SELECT '\(Self.template)', 1, 14, i % 250, i / 250, 100, randomblob(500 + abs(random()) % 1000), 0, 1 FROM n;
            INSERT INTO region_tiles SELECT 1, id FROM tiles WHERE id <= 30000;
            INSERT INTO region_tiles SELECT 2, id FROM tiles WHERE id > 20000;
            """)
        try target.write { batch in
            for i in 0..<5000 {
                try batch.putTile(key(14, i % 250, i / 250), data: .encoding(Data("old".utf8)), headers: CacheHeaders(modified: 50))
            }
        }
        let start = Date()
        let report = try DatabaseMerge(path: sidePath).write(into: target)
        let seconds = Date().timeIntervalSince(start)
        let size = (try FileManager.default.attributesOfItem(atPath: sidePath)[.size] as? NSNumber)?.intValue ?? 0
        print("merge of 50,000 tiles (side file \(size / 1_048_576) MiB): \(String(format: "%.2f", seconds)) s")
        XCTAssertEqual(report.tiles, MergeReport.RowCounts(new: 45_000, updated: 5_000, present: 0, skipped: 0, linked: 60_000))
        XCTAssertEqual(try members("a").tiles, 30_000)
        XCTAssertEqual(try members("b").tiles, 30_000)
        XCTAssertEqual(try target.databaseCounts().tiles, 50_000)
    }
}
