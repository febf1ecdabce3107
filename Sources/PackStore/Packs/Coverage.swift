import Foundation
import GRDB

/// `packs/NAME/coverage.geojson` and `packfs status --coverage`: what a pack holds of a tile
/// set, as a GeoJSON FeatureCollection with a Feature per zoom (`properties`: `zoom`, `tiles`)
/// whose MultiPolygon is the union of that zoom's tiles (`CoverageOutline`: dissolved, holes
/// kept, exterior rings counter-clockwise and holes clockwise), in degrees.
///
/// Drawn from the pack's kept runs (`Runs`), never from its tiles: the read costs the runs (a
/// column of a region's zoom is one) and the boundary, not the tiles. Until the pack is counted
/// (a database an app filled, while the mount's background count runs) the document has no
/// features and says `"counting": true`, as progress.json does.
extension OfflineDatabase {
    enum CoverageSQL {
        static let ready = "SELECT 1 FROM packfs_pack_counts WHERE region_id = ? AND counting = 0"
        /// The primary key's order: no sort, no scan.
        static let runs = """
            SELECT z, x, min_y, max_y FROM packfs_pack_runs
              WHERE region_id = ? AND url_template = ? AND pixel_ratio = ? ORDER BY z, x, min_y
            """
    }

    /// Whether the pack's coverage can be drawn: its runs are counted.
    public func coverageCounted(_ region: RegionID) throws -> Bool {
        try read { db in
            try db.tableExists(Runs.table)
                && Bool.fetchOne(db.cachedStatement(sql: CoverageSQL.ready), arguments: [region.rawValue]) != nil
        }
    }

    /// The coverage document of the pack's tile set `set` (nil: the pack shows no tiles, so
    /// no features). `xyzRow` turns a stored row of zoom z into its XYZ row (a TMS source's
    /// rows are flipped).
    public func coverage(of region: RegionID, tiles set: TileColumnSet?, xyzRow: (_ y: Int, _ z: Int) -> Int) throws -> Data {
        let zooms: [Int: [CoverageOutline.Column]]? = try read { db in
            guard try db.tableExists(Runs.table),
                try Bool.fetchOne(db.cachedStatement(sql: CoverageSQL.ready), arguments: [region.rawValue]) != nil
            else { return nil }
            guard let set else { return [:] }
            return try Self.coverageRuns(set, xyzRow: xyzRow, db)
        }
        guard let zooms else { return Data(#"{"type":"FeatureCollection","features":[],"counting":true}"#.utf8 + [0x0A]) }
        var text = #"{"type":"FeatureCollection","features":["#
        for (index, z) in zooms.keys.sorted().enumerated() {
            let columns = zooms[z] ?? []
            let tiles = columns.reduce(Int64(0)) { sum, column in
                column.runs.reduce(sum) { $0 + $1.upperBound - $1.lowerBound + 1 }
            }
            text += index == 0 ? "\n" : ",\n"
            text += #"{"type":"Feature","properties":{"zoom":\#(z),"tiles":\#(tiles)},"#
            text += #""geometry":{"type":"MultiPolygon","coordinates":"#
            Self.append(CoverageOutline.polygons(columns), z: z, to: &text)
            text += "}}"
        }
        text += "\n]}\n"
        return Data(text.utf8)
    }

    /// The set's runs by zoom, in XYZ rows, each within its zoom's grid (rows of an app's file
    /// outside it are left out).
    static func coverageRuns(_ set: TileColumnSet, xyzRow: (Int, Int) -> Int, _ db: Database) throws
        -> [Int: [CoverageOutline.Column]]
    {
        var zooms: [Int: [CoverageOutline.Column]] = [:]
        let rows = try Row.fetchCursor(
            db.cachedStatement(sql: CoverageSQL.runs), arguments: [set.region.rawValue, set.urlTemplate, set.pixelRatio])
        while let row = try rows.next() {
            guard let z: Int = row.lenient("z"), (0...TileEdges.maxZoom).contains(z), let x: Int64 = row.lenient("x"),
                let low: Int64 = row.lenient("min_y"), let high: Int64 = row.lenient("max_y")
            else { continue }
            let size = Int64(1) << z
            let (first, last) = (max(low, 0), min(high, size - 1))
            guard (0..<size).contains(x), first <= last else { continue }
            let (a, b) = (Int64(xyzRow(Int(first), z)), Int64(xyzRow(Int(last), z)))
            let run = min(a, b)...max(a, b)
            var columns = zooms.removeValue(forKey: z) ?? []
            if let last = columns.indices.last, columns[last].x == x {
                columns[last].runs.append(run)
            } else {
                columns.append(CoverageOutline.Column(x: x, runs: [run]))
            }
            zooms[z] = columns
        }
        return zooms
    }

    /// A MultiPolygon's coordinates, in degrees.
    private static func append(_ polygons: [CoverageOutline.Polygon], z: Int, to text: inout String) {
        text += "["
        for (p, polygon) in polygons.enumerated() {
            text += p == 0 ? "[" : ",["
            for (r, ring) in polygon.enumerated() {
                text += r == 0 ? "[" : ",["
                for (i, point) in ring.enumerated() {
                    text += i == 0 ? "[" : ",["
                    text += "\(TileEdges.longitude(x: point.x, z: z)),\(TileEdges.latitude(row: point.r, z: z))]"
                }
                text += "]"
            }
            text += "]"
        }
        text += "]"
    }
}

/// The edges of Web Mercator tiles in degrees: column line x and row line y of zoom z (XYZ rows,
/// north first), as MapLibre's tile cover computes them.
public enum TileEdges {
    /// The deepest zoom a coverage draws (the mount's zooms go to 31).
    public static let maxZoom = 31

    public static func longitude(x: Int64, z: Int) -> Double {
        Double(x) / Double(Int64(1) << z) * 360 - 180
    }

    public static func latitude(row: Int64, z: Int) -> Double {
        atan(sinh(Double.pi * (1 - 2 * Double(row) / Double(Int64(1) << z)))) * 180 / Double.pi
    }
}
