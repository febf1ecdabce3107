import Foundation

/// The single-statement questions the mount asks for every file it looks up or reads (a tile by
/// key, a tile or resource by row, membership), on raw read connections (`ReaderPool`): through
/// GRDB each cost more than the SQLite work itself (measured: 157 µs of daemon CPU per cold tile,
/// most of it GRDB's per-read machinery, for three reads). Same SQL (`TreeSQL`), same indexes.
extension OfflineDatabase {
    enum TreeRead {
        static let tileByKey = ReadQuery(TreeSQL.tileByKey)
        static let tileDataByKey = ReadQuery(TreeSQL.tileDataByKey)
        static let tileDataByID = ReadQuery(TreeSQL.tileDataByID)
        static let resourceByURL = ReadQuery(TreeSQL.resourceByURL)
        static let resourceDataByID = ReadQuery(TreeSQL.resourceDataByID)
        static let holdsTile = ReadQuery(TreeSQL.holdsTile)
        static let holdsResource = ReadQuery(TreeSQL.holdsResource)
    }

    /// The row of a tile with content that the pack holds, or nil.
    public func packTileID(_ key: TileKey, in region: RegionID) throws -> TileID? {
        try first(TreeRead.tileByKey, Self.arguments(key, region)) { TileID(rawValue: $0.int64(0)) }
    }

    /// The row and stored data of a tile with content that the pack holds, or nil: finding it
    /// proves the membership, so a lookup needs no second read.
    public func packTileData(_ key: TileKey, in region: RegionID) throws -> (id: TileID, data: StoredData)? {
        try first(TreeRead.tileDataByKey, Self.arguments(key, region)) { row in
            (TileID(rawValue: row.int64(0)), StoredData(bytes: row.blob(1), compressed: row.bool(2)))
        }
    }

    /// The stored data of a tile row, if `region` still holds it.
    public func packTileData(_ id: TileID, in region: RegionID) throws -> StoredData? {
        try first(TreeRead.tileDataByID, [.int(id.rawValue), .int(region.rawValue)]) { row in
            StoredData(bytes: row.blob(0), compressed: row.bool(1))
        }
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

    private static func arguments(_ key: TileKey, _ region: RegionID) -> [ReadArgument] {
        [.text(key.urlTemplate), .int(Int64(key.pixelRatio)), .int(Int64(key.z)), .int(Int64(key.x)),
         .int(Int64(key.y)), .int(region.rawValue)]
    }

    /// The first row of one statement on a raw connection, or nil.
    private func first<T>(_ query: ReadQuery, _ arguments: [ReadArgument], _ value: (ReadRow) throws -> T) throws -> T? {
        try readers.withConnection { try $0.first(query, arguments, value) }
    }
}
