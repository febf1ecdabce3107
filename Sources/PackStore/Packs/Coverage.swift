import Basics
import FoundationEssentials
import SQLiteDB

#if canImport(Glibc)
    import Glibc
#endif

/// `packs/NAME/coverage.geojson` and `packfs status --coverage` (docs/mount.md, "coverage.geojson"): what a pack
/// holds of a tile set, a Feature per zoom whose MultiPolygon is its tiles' union (`CoverageOutline`), drawn from
/// the runs (`Runs`), never the tiles. Until the pack is counted it has no features and says `"counting": true`.
extension OfflineDatabase {
    enum CoverageRead {
        static let ready = StatementKey("SELECT 1 FROM packfs_pack_counts WHERE region_id = ? AND counting = 0")
        /// The primary key's order: no sort, no scan.
        static let runs = StatementKey("""
            SELECT z, x, min_y, max_y FROM packfs_pack_runs
              WHERE region_id = ? AND url_template = ? AND pixel_ratio = ? ORDER BY z, x, min_y
            """)
    }

    static let countingCoverage = Data(#"{"type":"FeatureCollection","features":[],"counting":true}"#.utf8 + [0x0A])

    /// Whether the pack's coverage can be drawn: its runs are counted.
    public func coverageCounted(_ region: RegionID) throws -> Bool {
        try readWithoutTransaction { try Self.coverageCounted(region, $0) }
    }

    private static func coverageCounted(_ region: RegionID, _ db: Database) throws -> Bool {
        guard try db.tableExists(Runs.table) else { return false }
        return try db.cachedStatement(CoverageRead.ready).firstRow(arguments: [region.rawValue]) { _ in true } ?? false
    }

    /// The coverage document of the pack's tile set `set` (nil: the pack shows no tiles, so no features). `xyzRow`
    /// turns a stored row of zoom z into its XYZ row (a TMS source's are flipped). The last documents are kept with
    /// their runs, so a read with the same runs (the size, then each read of one `cat`) costs only the runs' read.
    public func coverage(of region: RegionID, tiles set: TileColumnSet?, xyzRow: (_ y: Int, _ z: Int) -> Int) throws -> Data {
        let runs: [Int64]? = try readWithoutTransaction { db in
            guard try Self.coverageCounted(region, db) else { return nil }
            guard let set else { return [] }
            var runs: [Int64] = []
            let arguments: StatementArguments = [set.region.rawValue, set.urlTemplate, set.pixelRatio]
            try db.cachedStatement(CoverageRead.runs).forEachRow(arguments: arguments) { row in
                // A bookkeeping row that is not four integers is left out.
                if let z = row.integer(0), let x = row.integer(1), let low = row.integer(2), let high = row.integer(3) {
                    runs += [z, x, low, high]
                }
            }
            return runs
        }
        guard let runs else { return Self.countingCoverage }
        // The row rule, told apart by what it makes of row 0 of zoom 1: XYZ (0) or TMS (1).
        let key = CoverageCache.Key(set: set, flips: xyzRow(0, 1) != 0)
        if let document = coverages.document(key, runs: runs) { return document }
        let document = Self.coverageDocument(Self.coverageColumns(runs, xyzRow: xyzRow))
        coverages.store(document, key, runs: runs)
        return document
    }

    static func coverageDocument(_ zooms: [Int: [CoverageOutline.Column]]) -> Data {
        var text = #"{"type":"FeatureCollection","features":["#
        for (index, z) in zooms.keys.sorted().enumerated() {
            let columns = zooms[z] ?? []
            let tiles = columns.reduce(Int64(0)) { sum, column in
                column.runs.reduce(sum) { $0 + $1.upperBound - $1.lowerBound + 1 }
            }
            text += index == 0 ? "\n" : ",\n"
            text += #"{"type":"Feature","properties":{"zoom":\#(z),"tiles":\#(tiles)},"#
            text += #""geometry":{"type":"MultiPolygon","coordinates":"#
            text += coordinates(CoverageOutline.polygons(columns), z: z)
            text += "}}"
        }
        text += "\n]}\n"
        return Data(text.utf8)
    }

    /// Runs as (z, x, min_y, max_y) in a row, by zoom, in XYZ rows; rows outside a zoom's grid (an app's) are left out.
    static func coverageColumns(_ runs: [Int64], xyzRow: (Int, Int) -> Int) -> [Int: [CoverageOutline.Column]] {
        var zooms: [Int: [CoverageOutline.Column]] = [:]
        var index = 0
        while index + 3 < runs.count {
            defer { index += 4 }
            let (zoom, x, low, high) = (runs[index], runs[index + 1], runs[index + 2], runs[index + 3])
            guard (0...Int64(TileEdges.maxZoom)).contains(zoom) else { continue }
            let z = Int(zoom)
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
    private static func coordinates(_ polygons: [CoverageOutline.Polygon], z: Int) -> String {
        func list<T>(_ items: [T], _ item: (T) -> String) -> String {
            "[" + items.map(item).joined(separator: ",") + "]"
        }
        return list(polygons) { polygon in
            list(polygon) { ring in
                list(ring) { "[\(TileEdges.longitude(x: $0.x, z: z)),\(TileEdges.latitude(row: $0.r, z: z))]" }
            }
        }
    }
}

/// The last coverage documents drawn, with their runs (a few packs': readers look at a pack or two at a time).
final class CoverageCache: Sendable {
    struct Key: Hashable, Sendable {
        var set: TileColumnSet?
        var flips: Bool
    }

    static let capacity = 8
    private let entries = LockedState<[Key: (runs: [Int64], document: Data)]>([:])

    func document(_ key: Key, runs: [Int64]) -> Data? {
        entries.withLock { $0[key].flatMap { $0.runs == runs ? $0.document : nil } }
    }

    func store(_ document: Data, _ key: Key, runs: [Int64]) {
        entries.withLock { entries in
            if entries[key] == nil, entries.count >= Self.capacity { entries.removeAll() }
            entries[key] = (runs, document)
        }
    }
}

/// Web Mercator tile edges in degrees, as MapLibre's tile cover has them: column line x, row line y of zoom z (XYZ).
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
