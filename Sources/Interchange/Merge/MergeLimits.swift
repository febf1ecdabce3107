import SQLiteDB

/// The database-wide tile caps a merge respects, the downloader's: `--max-tiles` over every tile, MapLibre's Mapbox
/// limit over `mapbox://` tiles. Every stored tile counts, ambient ones too; of the side, the tiles its packs hold.
public struct MergeOptions: Sendable {
    /// Tiles in the whole database at most after the merge; nil for no cap.
    public var maxTiles: Int?
    /// `mapbox://` tiles in the whole database at most (MapLibre's 6,000).
    public var mapboxTileLimit: Int

    public init(maxTiles: Int? = nil, mapboxTileLimit: Int = 6000) {
        self.maxTiles = maxTiles
        self.mapboxTileLimit = mapboxTileLimit
    }
}

/// Checked first in the merge's transaction, before it writes anything: a merge over a cap is
/// refused whole (MapLibre's `MapboxTileLimitExceededException`), never stored in part.
enum MergeLimits {
    static func check(_ db: Database, _ options: MergeOptions, file: String) throws {
        let stored = try totals(db, sql: "SELECT COUNT(*), COALESCE(SUM(url_template LIKE 'mapbox://%'), 0) FROM main.tiles")
        let new = try totals(db, sql: """
            SELECT COUNT(*), COALESCE(SUM(st.url_template LIKE 'mapbox://%'), 0)
            FROM (SELECT DISTINCT url_template, pixel_ratio, z, x, y FROM side.tiles st
                  WHERE \(MergeSQL.wellTypedTile)
                    AND EXISTS (SELECT 1 FROM side.region_tiles sm WHERE sm.tile_id = st.id)) st
            WHERE NOT EXISTS (SELECT 1 FROM main.tiles t WHERE \(MergeSQL.sameTile))
            """)
        if let max = options.maxTiles, new.all > 0, stored.all + new.all > max {
            throw InterchangeError.tileLimit(file: file, adding: new.all, stored: stored.all, limit: max, mapbox: false)
        }
        if new.mapbox > 0, stored.mapbox + new.mapbox > options.mapboxTileLimit {
            throw InterchangeError.tileLimit(
                file: file, adding: new.mapbox, stored: stored.mapbox, limit: options.mapboxTileLimit, mapbox: true)
        }
    }

    private static func totals(_ db: Database, sql: String) throws -> (all: Int, mapbox: Int) {
        guard let row = try Row.fetchOne(db, sql: sql) else { return (0, 0) }  // an aggregate always has a row
        return try (row.decode(atIndex: 0), row.decode(atIndex: 1))
    }
}
