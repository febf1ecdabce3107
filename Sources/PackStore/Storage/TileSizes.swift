import Basics
import FoundationEssentials
import SQLiteDB

/// Served sizes of compressed or gzip tiles, whose stored length is not their size (`ServedTile`). A file's size must
/// be exact, so without this table a listing with attributes (`du`, `ls -l`) would inflate every tile. The writer,
/// which just decoded the body, records the size; triggers on `tiles` (Schema.bookkeeping) drop it when the content
/// changes, so a size found is trusted. A tile without one (an app's) is decoded instead.
extension StoreBatch {
    static let sizesTable = "packfs_tile_sizes"

    /// Records the served size, if known, of the tile just stored in row `id` (its upsert's trigger dropped the old).
    func recordSize(of id: TileID, _ data: StoredData, contentSize: Int?) throws {
        // Uncompressed content other than gzip is its own size (readers take length(data)).
        guard let contentSize, data.servedSizeDiffers else { return }
        if try !db.tableExists(Self.sizesTable) { try Migrations.ensureBookkeeping(db) }
        try db.cachedStatement(sql: "INSERT OR REPLACE INTO packfs_tile_sizes (tile_id, size) VALUES (?, ?)")
            .execute(arguments: [id.rawValue, contentSize])
    }
}

extension StoredData {
    /// The size the mount serves for decoded `content`, for `putTile(contentSize:)`: gzip content is inflated here,
    /// once, by the writer, not by every listing. nil when it does not inflate (a listing then reports what is wrong).
    public static func servedSize(of content: Data) -> Int? {
        (try? ServedTile.content(decoded: content))?.map(\.count)
    }
}
