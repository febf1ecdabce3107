import Basics
import SQLiteDB

/// Who holds a tile row: tiles are shared by URL, so a patch asks which other packs see a row it changes
/// (one membership-index seek per tile).
extension StoreBatch {
    /// The tile's row (id and stored data) under `key`, or nil; a damaged row throws (`RowDecoding`).
    public func storedTile(_ key: TileKey) throws -> (id: TileID, data: StoredData)? {
        guard let row = try Row.fetchOne(
            db.cachedStatement(sql: "SELECT id, data, compressed FROM tiles WHERE \(TileKey.match)"),
            arguments: key.arguments)
        else { return nil }
        return (TileID(rawValue: try row.stored(at: 0, "tiles.id")), try OfflineDatabase.storedData(row, of: "tiles"))
    }

    /// Whether `region` holds tile row `tile`.
    public func holds(_ region: RegionID, tile: TileID) throws -> Bool {
        try Int.fetchOne(
            db.cachedStatement(sql: "SELECT 1 FROM region_tiles WHERE region_id = ? AND tile_id = ?"),
            arguments: [region.rawValue, tile.rawValue]) != nil
    }

    /// The packs other than `region` that hold tile row `tile`.
    public func otherHolders(of tile: TileID, besides region: RegionID) throws -> [RegionID] {
        try Int64.fetchAll(
            db.cachedStatement(sql: "SELECT region_id FROM region_tiles WHERE tile_id = ? AND region_id != ?"),
            arguments: [tile.rawValue, region.rawValue]
        ).map(RegionID.init(rawValue:))
    }
}
