import Basics
import FoundationEssentials

/// The single-statement questions the mount asks for every file it looks up or reads (a tile by
/// key, a tile or resource by row, membership), on raw read connections (`ReaderPool`): through
/// GRDB each cost more than the SQLite work itself (measured: 157 µs of daemon CPU per cold tile,
/// most of it GRDB's per-read machinery, for three reads). Same SQL (`TreeSQL`), same indexes.
extension OfflineDatabase {
    enum TreeRead {
        static let tileByKey = ReadQuery(TreeSQL.tileByKey)
        static let tileDataByKey = ReadQuery(TreeSQL.tileDataByKey)
        static let tileDataByID = ReadQuery(TreeSQL.tileDataByID)
        static let tileServedByID = ReadQuery(TreeSQL.tileServedByID)
        static let resourceByURL = ReadQuery(TreeSQL.resourceByURL)
        static let resourceDataByID = ReadQuery(TreeSQL.resourceDataByID)
        static let holdsTile = ReadQuery(TreeSQL.holdsTile)
        static let zoomProbe = ReadQuery(TreeSQL.zoomProbe)
        static let columnProbe = ReadQuery(TreeSQL.columnProbe)
        static let rows = [false, true].map { ReadQuery(TreeSQL.rows(descending: $0)) }
        /// Listing pages with sizes, by order, with and without PackFS's sizes table.
        static let sizedRows = [false, true].map { descending in
            [false, true].map { ReadQuery(TreeSQL.sizedRows(descending: descending, sizesTable: $0)) }
        }
        static let sizesTableExists = ReadQuery(
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = '\(StoreBatch.sizesTable)'")
        static let holdsResource = ReadQuery(TreeSQL.holdsResource)
        static let resourcesOfKind = ReadQuery(TreeSQL.resourcesOfKind)
    }

    /// The row of a tile with content that the pack holds, or nil.
    public func packTileID(_ key: TileKey, in region: RegionID) throws -> TileID? {
        try first(TreeRead.tileByKey, Self.arguments(key, region)) { TileID(rawValue: $0.int64(0)) }
    }

    /// The stored data of a tile row, if `region` still holds it.
    public func packTileData(_ id: TileID, in region: RegionID) throws -> StoredData? {
        try first(TreeRead.tileDataByID, [.int(id.rawValue), .int(region.rawValue)]) { row in
            StoredData(bytes: row.blob(0), compressed: row.bool(1))
        }
    }

    /// Whether the set has a tile with content at zoom `z` (one probe: a lookup of `<z>/`).
    public func hasTiles(_ set: TileColumnSet, z: Int) throws -> Bool {
        try readers.withConnection { connection in
            if try extentsReady(set.region, connection) {
                return try connection.first(ExtentRead.zoomProbe, Self.setArguments(set) + [.int(Int64(z))]) { _ in true } ?? false
            }
            let arguments: [ReadArgument] = [
                .text(set.urlTemplate), .int(Int64(set.pixelRatio)), .int(Int64(z)), .int(set.region.rawValue),
            ]
            return try connection.first(TreeRead.zoomProbe, arguments) { _ in true } ?? false
        }
    }

    /// Whether the set has a tile with content in column z/x (one probe: a lookup of `<z>/<x>/`).
    public func hasTiles(_ set: TileColumnSet, z: Int, x: Int) throws -> Bool {
        try readers.withConnection { connection in
            guard let rows = try rowRange(set, z: z, x: x, inGrid: false, connection) else { return false }
            let arguments: [ReadArgument] = [
                .text(set.urlTemplate), .int(Int64(set.pixelRatio)), .int(Int64(z)), .int(Int64(x)),
                .int(rows.lowerBound), .int(rows.upperBound), .int(set.region.rawValue),
            ]
            return try connection.first(TreeRead.columnProbe, arguments) { _ in true } ?? false
        }
    }

    /// The rows of column z/x worth reading for the pack: the pack's extent when it is known
    /// (nil when the pack holds nothing there), else all; `inGrid`, only those of the zoom's
    /// grid (0 to 2^z - 1: an app's file may hold others, which no path names). A column is
    /// listed, and looks up, when it holds any row, as the listing of columns finds it.
    func rowRange(_ set: TileColumnSet, z: Int, x: Int, inGrid: Bool, _ connection: ReadConnection) throws
        -> ClosedRange<Int64>?
    {
        let grid = inGrid ? 0...Int64((1 << min(max(z, 0), 62)) - 1) : Int64.min...Int64.max
        switch try columnExtent(set, z: z, x: x, connection) {
        case .none: return grid
        case .some(.none): return nil
        case .some(.some(let extent)): return extent.overlaps(grid) ? extent.clamped(to: grid) : nil
        }
    }

    /// Up to `limit` stored rows (y as stored, with the tile's row id) of column z/x, after `after`
    /// in the order asked: ascending, or descending for a TMS source listed in XYZ order. Only
    /// rows of the zoom's grid (0 to 2^z - 1) come: an app's file may hold others, which no path
    /// names, and a page of them would end a listing early. One statement per page on a raw
    /// connection (through GRDB's read, with its transaction, a walk of a 1,000,000-tile pack
    /// spent most of its time in GRDB).
    public func tileRows(_ set: TileColumnSet, z: Int, x: Int, after: Int, descending: Bool, limit: Int)
        throws -> [(y: Int, id: TileID)]
    {
        var rows: [(y: Int, id: TileID)] = []
        rows.reserveCapacity(max(limit, 0))
        try readers.withConnection { connection in
            guard let range = try rowRange(set, z: z, x: x, inGrid: true, connection) else { return }
            try connection.each(TreeRead.rows[descending ? 1 : 0], Self.rowArguments(set, z, x, after, range, limit)) { row in
                rows.append((y: Int(row.int64(0)), id: TileID(rawValue: row.int64(1))))
                return true
            }
        }
        return rows
    }

    /// `tileRows` with each row's served size when it is known without decoding (nil: decode
    /// the tile to know it). A walk of a 1,000,000-tile pack lists 195 tiles per page.
    public func tileRowsWithSizes(_ set: TileColumnSet, z: Int, x: Int, after: Int, descending: Bool, limit: Int)
        throws -> [(y: Int, id: TileID, size: Int?)]
    {
        try readers.withConnection { connection in
            guard let range = try rowRange(set, z: z, x: x, inGrid: true, connection) else { return [] }
            let arguments = Self.rowArguments(set, z, x, after, range, limit)
            let sized = try connection.first(TreeRead.sizesTableExists, []) { _ in true } ?? false
            var rows: [(y: Int, id: TileID, size: Int?)] = []
            rows.reserveCapacity(max(limit, 0))
            try connection.each(TreeRead.sizedRows[descending ? 1 : 0][sized ? 1 : 0], arguments) { row in
                // A negative size (a damaged sizes row) counts as unknown: decode instead.
                let size = row.integer(2).flatMap { $0 >= 0 ? Int(exactly: $0) : nil }
                rows.append((y: Int(row.int64(0)), id: TileID(rawValue: row.int64(1)), size: size))
                return true
            }
            return rows
        }
    }

    private static func rowArguments(
        _ set: TileColumnSet, _ z: Int, _ x: Int, _ after: Int, _ rows: ClosedRange<Int64>, _ limit: Int
    ) -> [ReadArgument] {
        [
            .text(set.urlTemplate), .int(Int64(set.pixelRatio)), .int(Int64(z)), .int(Int64(x)), .int(Int64(after)),
            .int(rows.lowerBound), .int(rows.upperBound), .int(set.region.rawValue), .int(Int64(limit)),
        ]
    }

    /// Row ids and URLs of the pack's resources of one kind, by row id (through the membership
    /// index: as many rows as the pack holds resources, never the whole table). A row whose id
    /// does not decode names no file and is left out. On a raw connection: a glyph lookup asks
    /// for the pack's glyphs (a few hundred rows), and through GRDB copying the rows was half
    /// of a glyph directory's listing.
    public func packResources(of kind: ResourceKind, in region: RegionID) throws -> [(id: ResourceID, url: String)] {
        var found: [(id: ResourceID, url: String)] = []
        try readers.withConnection { connection in
            try connection.each(TreeRead.resourcesOfKind, [.int(region.rawValue), .int(Int64(kind.rawValue))]) { row in
                if let id = row.integer(0), let url = row.text(1) { found.append((id: ResourceID(rawValue: id), url: url)) }
                return true
            }
        }
        return found
    }

    /// The row of the resource stored under `url`, if `region` holds it.
    public func packResourceID(url: String, in region: RegionID) throws -> ResourceID? {
        try first(TreeRead.resourceByURL, [.text(url), .int(region.rawValue)]) { ResourceID(rawValue: $0.int64(0)) }
    }

    /// The stored data of a resource row, if `region` holds it.
    public func packResourceData(_ id: ResourceID, in region: RegionID) throws -> StoredData? {
        try first(TreeRead.resourceDataByID, [.int(id.rawValue), .int(region.rawValue)]) { row in
            StoredData(bytes: row.blob(0), compressed: row.bool(1))
        }
    }

    /// Whether `region` still holds the tile row (membership index only: no data read).
    public func packHolds(tile id: TileID, in region: RegionID) throws -> Bool {
        try first(TreeRead.holdsTile, [.int(region.rawValue), .int(id.rawValue)]) { _ in true } ?? false
    }

    public func packHolds(resource id: ResourceID, in region: RegionID) throws -> Bool {
        try first(TreeRead.holdsResource, [.int(region.rawValue), .int(id.rawValue)]) { _ in true } ?? false
    }

    static func arguments(_ key: TileKey, _ region: RegionID) -> [ReadArgument] {
        [.text(key.urlTemplate), .int(Int64(key.pixelRatio)), .int(Int64(key.z)), .int(Int64(key.x)),
         .int(Int64(key.y)), .int(region.rawValue)]
    }

    /// The first row of one statement on a raw connection, or nil.
    private func first<T>(_ query: ReadQuery, _ arguments: [ReadArgument], _ value: (ReadRow) throws -> T) throws -> T? {
        try readers.withConnection { try $0.first(query, arguments, value) }
    }
}
