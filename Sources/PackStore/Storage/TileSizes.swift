import Basics
import FoundationEssentials
import SQLiteDB

/// Served sizes of tiles whose stored length is not their size, in PackFS's `packfs_tile_sizes`
/// table: compressed tiles, and gzip content (an MBTiles file's vector tiles, kept as they are),
/// which the mount serves inflated (`ServedTile`).
///
/// A file's size must be exact, and a compressed tile's decoded size is not in MapLibre's schema:
/// without this table a listing with attributes (READDIRPLUS: `du`, `ls -l`, `find -size`) would
/// read and inflate every tile it lists. The writer knows the size (it just decoded the body), so
/// it keeps it beside the row; triggers on `tiles` (Schema.bookkeeping) drop it when the content
/// changes or goes, whoever writes, so a listing trusts a size it finds without reading the tile
/// row. A tile without a size (an app's, or one stored before this table) is decoded instead.
extension StoreBatch {
    static let sizesTable = "packfs_tile_sizes"

    /// Records the served size of the tile just stored in row `id`. The upsert's own update
    /// has already dropped an old size (trigger); an unknown size leaves none.
    func recordSize(of id: TileID, _ data: StoredData, contentSize: Int?) throws {
        // Uncompressed content other than gzip is its own size (readers take length(data)).
        guard let contentSize, data.servedSizeDiffers else { return }
        if try !db.tableExists(Self.sizesTable) { try Migrations.ensureBookkeeping(db) }
        try db.cachedStatement(sql: "INSERT OR REPLACE INTO packfs_tile_sizes (tile_id, size) VALUES (?, ?)")
            .execute(arguments: [id.rawValue, contentSize])
    }
}

extension StoredData {
    /// The size the mount serves for a tile whose decoded content is `content`, for
    /// `putTile(contentSize:)`: content that is itself gzip is inflated once more, as the mount
    /// serves it (`ServedTile`), here, once, by the writer, rather than by every listing
    /// (an imported pack's `du` inflated every tile: a sixth of the daemon's time). nil when
    /// it does not inflate (a listing then reports what is wrong).
    public static func servedSize(of content: Data) -> Int? {
        (try? ServedTile.content(decoded: content))?.map(\.count)
    }
}
