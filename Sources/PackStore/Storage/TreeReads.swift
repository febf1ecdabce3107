import Basics
import FoundationEssentials
import SQLiteDB

/// The single-statement questions the mount asks for every file it looks up or reads, each on a reader
/// without a transaction of its own (inside a request, its one snapshot), with a cached statement and its
/// row read in place, so the per-read machinery stays small beside SQLite's work. SQL: `TreeSQL`.
extension OfflineDatabase {
    /// The row of a tile with content that the pack holds, or nil.
    public func packTileID(_ key: TileKey, in region: RegionID) throws -> TileID? {
        try first(TreeSQL.tileByKey, Self.arguments(key, region)) { TileID(rawValue: $0.int64(0)) }
    }

    /// Whether the set has a tile with content at zoom `z` (one probe: a lookup of `<z>/`).
    public func hasTiles(_ set: TileColumnSet, z: Int) throws -> Bool {
        try readWithoutTransaction { db in
            if try Self.extentsReady(set.region, db) {
                return try db.holds(ExtentSQL.zoomProbe, Self.setArguments(set) + [z])
            }
            return try db.holds(TreeSQL.zoomProbe, [set.urlTemplate, set.pixelRatio, z, set.region.rawValue])
        }
    }

    /// Whether the set has a tile with content in column z/x (one probe: a lookup of `<z>/<x>/`).
    public func hasTiles(_ set: TileColumnSet, z: Int, x: Int) throws -> Bool {
        try readWithoutTransaction { db in
            guard let rows = try Self.rowRange(set, z: z, x: x, inGrid: false, db) else { return false }
            return try db.holds(TreeSQL.columnProbe, [
                set.urlTemplate, set.pixelRatio, z, x, rows.lowerBound, rows.upperBound, set.region.rawValue,
            ])
        }
    }

    /// The rows of column z/x worth reading: the pack's extent when known (nil when the pack holds
    /// nothing there), else all; `inGrid`, only the zoom's grid (0 to 2^z - 1), the rows a path can name.
    static func rowRange(_ set: TileColumnSet, z: Int, x: Int, inGrid: Bool, _ db: Database) throws -> ClosedRange<Int64>? {
        let grid = inGrid ? Self.grid(z) : Int64.min...Int64.max
        switch try columnExtent(set, z: z, x: x, db) {
        case .none: return grid
        case .some(.none): return nil
        case .some(.some(let extent)): return extent.overlaps(grid) ? extent.clamped(to: grid) : nil
        }
    }

    /// The rows of zoom z's grid, 0 to 2^z - 1.
    static func grid(_ z: Int) -> ClosedRange<Int64> { 0...Int64((1 << min(max(z, 0), 62)) - 1) }

    /// The rows a page of column z/x reads, and whether the pack's tiles are kept by key (`PackTiles`): then
    /// the grid, as the kept tiles' one range of one b-tree ends where the column does, and the extent's
    /// two lookups (`rowRange`) would be paid again for every page of a listing (7 for a column of 1,000).
    private static func pageRange(_ set: TileColumnSet, z: Int, x: Int, _ db: Database) throws
        -> (rows: ClosedRange<Int64>, kept: Bool)?
    {
        if try PackTiles.ready(set.region, db) { return (grid(z), true) }
        return try rowRange(set, z: z, x: x, inGrid: true, db).map { ($0, false) }
    }

    /// Up to `limit` stored rows (y as stored, and row id) of column z/x after `after`, ascending, or
    /// descending for a TMS source listed in XYZ order. Only the zoom's grid: a page of off-grid rows (an
    /// app's file may hold them) would end a listing early.
    public func tileRows(_ set: TileColumnSet, z: Int, x: Int, after: Int, descending: Bool, limit: Int)
        throws -> [(y: Int, id: TileID)]
    {
        var rows: [(y: Int, id: TileID)] = []
        rows.reserveCapacity(max(limit, 0))
        try readWithoutTransaction { db in
            guard let (range, kept) = try Self.pageRange(set, z: z, x: x, db) else { return }
            try db.cachedStatement(kept ? PackTiles.names[descending ? 1 : 0] : TreeSQL.rows[descending ? 1 : 0]).forEachRow(
                arguments: Self.rowArguments(set, z, x, after, range, limit, kept: kept)
            ) { row in
                rows.append((y: Int(row.int64(0)), id: TileID(rawValue: row.int64(1))))
            }
        }
        return rows
    }

    /// `tileRows` with each row's served size when known without decoding (nil: decode the tile). A pack whose
    /// tiles are kept by key (`PackTiles`) is read from there: one range of one b-tree, in key order.
    public func tileRowsWithSizes(_ set: TileColumnSet, z: Int, x: Int, after: Int, descending: Bool, limit: Int)
        throws -> [(y: Int, id: TileID, size: Int?)]
    {
        try readWithoutTransaction { db in
            guard let (range, kept) = try Self.pageRange(set, z: z, x: x, db) else { return [] }
            let statement = try kept
                ? PackTiles.rows[descending ? 1 : 0]
                : TreeSQL.sizedRows[descending ? 1 : 0][db.tableExists(StoreBatch.sizesTable) ? 1 : 0]
            var rows: [(y: Int, id: TileID, size: Int?)] = []
            rows.reserveCapacity(max(limit, 0))
            try db.cachedStatement(statement).forEachRow(
                arguments: Self.rowArguments(set, z, x, after, range, limit, kept: kept)
            ) { row in
                // A negative size (a damaged sizes row) counts as unknown: decode instead.
                let size = row.integer(2).flatMap { $0 >= 0 ? Int(exactly: $0) : nil }
                rows.append((y: Int(row.int64(0)), id: TileID(rawValue: row.int64(1)), size: size))
            }
            return rows
        }
    }

    /// Tile row `id`'s recorded served size (`TileSizes`), nil where none is (an app's tile, uncompressed
    /// content, a database PackFS never wrote): a size without an inflate, for a stat of a tile.
    public func recordedSize(ofTile id: TileID) throws -> Int? {
        try readWithoutTransaction { db in
            guard try db.tableExists(StoreBatch.sizesTable) else { return nil }
            // A negative size (a damaged sizes row) counts as unknown, as in listings.
            let size = try db.cachedStatement(TreeSQL.recordedSize).firstRow(arguments: [id.rawValue]) { $0.integer(0) }
            return size.flatMap { $0 }.flatMap { $0 >= 0 ? Int(exactly: $0) : nil }
        }
    }

    /// The arguments of a page of rows: `PackTiles.rows` (`kept`, the pack first) or `TreeSQL`'s.
    private static func rowArguments(
        _ set: TileColumnSet, _ z: Int, _ x: Int, _ after: Int, _ rows: ClosedRange<Int64>, _ limit: Int, kept: Bool
    ) -> StatementArguments {
        let key: StatementArguments = [set.urlTemplate, set.pixelRatio, z, x, after, rows.lowerBound, rows.upperBound]
        return kept ? [set.region.rawValue] + key + [limit] : key + [set.region.rawValue, limit]
    }

    /// Row ids and URLs of the pack's resources of one kind, by row id, through the membership index
    /// (never the whole table). A row whose id does not decode names no file and is left out.
    public func packResources(of kind: ResourceKind, in region: RegionID) throws -> [(id: ResourceID, url: String)] {
        try readWithoutTransaction { db in
            var found: [(id: ResourceID, url: String)] = []
            try db.cachedStatement(TreeSQL.resourcesOfKind).forEachRow(arguments: [region.rawValue, kind.rawValue]) { row in
                if let id = row.integer(0), let url = row.text(1) { found.append((id: ResourceID(rawValue: id), url: url)) }
            }
            return found
        }
    }

    /// The row of the resource stored under `url`, if `region` holds it.
    public func packResourceID(url: String, in region: RegionID) throws -> ResourceID? {
        try first(TreeSQL.resourceByURL, [url, region.rawValue]) { ResourceID(rawValue: $0.int64(0)) }
    }

    /// The stored data of a resource row, if `region` holds it.
    public func packResourceData(_ id: ResourceID, in region: RegionID) throws -> StoredData? {
        try first(TreeSQL.resourceDataByID, [id.rawValue, region.rawValue]) { row in
            StoredData(bytes: row.blob(0), compressed: row.bool(1))
        }
    }

    /// Whether `region` still holds the tile row (membership index only: no data read).
    public func packHolds(tile id: TileID, in region: RegionID) throws -> Bool {
        try readWithoutTransaction { try $0.holds(TreeSQL.holdsTile, [region.rawValue, id.rawValue]) }
    }

    public func packHolds(resource id: ResourceID, in region: RegionID) throws -> Bool {
        try readWithoutTransaction { try $0.holds(TreeSQL.holdsResource, [region.rawValue, id.rawValue]) }
    }

    /// Every tile lookup's: built as values, not as an array literal of existentials.
    static func arguments(_ key: TileKey, _ region: RegionID) -> StatementArguments {
        StatementArguments(values: [
            key.urlTemplate.databaseValue, key.pixelRatio.databaseValue, key.z.databaseValue, key.x.databaseValue,
            key.y.databaseValue, region.rawValue.databaseValue,
        ])
    }

    /// The first row of one statement, read in place, or nil.
    func first<T>(_ key: StatementKey, _ arguments: StatementArguments, _ value: (StatementRow) throws -> T) throws -> T? {
        try readWithoutTransaction { db in try db.cachedStatement(key).firstRow(arguments: arguments, value) }
    }
}

extension Database {
    /// Whether the statement of `key` answers any row (a membership or a probe).
    func holds(_ key: StatementKey, _ arguments: StatementArguments) throws -> Bool {
        try cachedStatement(key).firstRow(arguments: arguments) { _ in true } ?? false
    }
}
