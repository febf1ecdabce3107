/// MapLibre Native's offline database schema, stable version 6, statement for statement as its
/// `offline_schema.sql` (comments stripped). The `ambient_*` tables and `tiles.encoding` column of some
/// snapshots are not part of the stable format and are deliberately absent.
enum Schema {
    static let version = 6

    /// Tables that must exist for a file to count as an offline database.
    static let tables = ["resources", "tiles", "regions", "region_resources", "region_tiles"]

    /// A tile's key, and the content columns `tiles` and `resources` share: the staged copies
    /// of both (Staging.swift) hold the same columns, so one text serves all four tables.
    static let tileKeyColumns = """
        url_template TEXT NOT NULL,
          pixel_ratio INTEGER NOT NULL,
          z INTEGER NOT NULL,
          x INTEGER NOT NULL,
          y INTEGER NOT NULL
        """
    static let contentColumns = """
        expires INTEGER,
          modified INTEGER,
          etag TEXT,
          data BLOB,
          compressed INTEGER NOT NULL DEFAULT 0,
          accessed INTEGER NOT NULL,
          must_revalidate INTEGER NOT NULL DEFAULT 0
        """

    static let statements: [String] = [
        """
        CREATE TABLE resources (
          id INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
          url TEXT NOT NULL,
          kind INTEGER NOT NULL,
          \(contentColumns),
          UNIQUE (url)
        )
        """,
        """
        CREATE TABLE tiles (
          id INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
          \(tileKeyColumns),
          \(contentColumns),
          UNIQUE (url_template, pixel_ratio, z, x, y)
        )
        """,
        """
        CREATE TABLE regions (
          id INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
          definition TEXT NOT NULL,
          description BLOB
        )
        """,
        """
        CREATE TABLE region_resources (
          region_id INTEGER NOT NULL REFERENCES regions(id) ON DELETE CASCADE,
          resource_id INTEGER NOT NULL REFERENCES resources(id),
          UNIQUE (region_id, resource_id)
        )
        """,
        """
        CREATE TABLE region_tiles (
          region_id INTEGER NOT NULL REFERENCES regions(id) ON DELETE CASCADE,
          tile_id INTEGER NOT NULL REFERENCES tiles(id),
          UNIQUE (region_id, tile_id)
        )
        """,
        "CREATE INDEX resources_accessed\nON resources (accessed)",
        "CREATE INDEX tiles_accessed\nON tiles (accessed)",
        "CREATE INDEX region_resources_resource_id\nON region_resources (resource_id)",
        "CREATE INDEX region_tiles_tile_id\nON region_tiles (tile_id)",
    ]

    /// PackFS's own bookkeeping, created on first write (never by `create`), so that a fresh
    /// database is exactly MapLibre's. Rows die with their region through the cascade.
    static let bookkeeping: [String] = [
        """
        CREATE TABLE IF NOT EXISTS packfs_pack_state (
          region_id INTEGER NOT NULL PRIMARY KEY REFERENCES regions(id) ON DELETE CASCADE,
          state TEXT NOT NULL,
          error TEXT,
          required_resources INTEGER NOT NULL DEFAULT 0,
          required_tiles INTEGER NOT NULL DEFAULT 0,
          required_is_precise INTEGER NOT NULL DEFAULT 0,
          updated INTEGER NOT NULL
        )
        """,
        """
        CREATE TABLE IF NOT EXISTS packfs_settings (
          key TEXT NOT NULL PRIMARY KEY,
          value TEXT NOT NULL
        )
        """,
        // Runs under way, and the unclean stops in a row that cut one (InterruptedRuns.swift).
        """
        CREATE TABLE IF NOT EXISTS packfs_interrupted_runs (
          region_id INTEGER NOT NULL PRIMARY KEY REFERENCES regions(id) ON DELETE CASCADE,
          under_way INTEGER NOT NULL DEFAULT 0,
          stops INTEGER NOT NULL DEFAULT 0
        )
        """,
        // A refresh asked for and not finished, and since when (PendingRefresh.swift).
        """
        CREATE TABLE IF NOT EXISTS packfs_refresh (
          region_id INTEGER NOT NULL PRIMARY KEY REFERENCES regions(id) ON DELETE CASCADE,
          since INTEGER NOT NULL
        )
        """,
        // Files `rm` took out of a pack on a mount, by key, until they settle (HandDrops.swift).
        // A tile has `z`, `x`, `y`; a resource has NULL there and its URL in `url`.
        """
        CREATE TABLE IF NOT EXISTS packfs_pending_drops (
          region_id INTEGER NOT NULL REFERENCES regions(id) ON DELETE CASCADE,
          url TEXT NOT NULL,
          pixel_ratio INTEGER,
          z INTEGER,
          x INTEGER,
          y INTEGER
        )
        """,
        // Served sizes of compressed or gzip tiles; the triggers keep a size present current (TileSizes.swift).
        """
        CREATE TABLE IF NOT EXISTS packfs_tile_sizes (
          tile_id INTEGER NOT NULL PRIMARY KEY,
          size INTEGER NOT NULL
        )
        """,
        """
        CREATE TRIGGER IF NOT EXISTS packfs_tile_sizes_update AFTER UPDATE OF data, compressed ON tiles
        BEGIN DELETE FROM packfs_tile_sizes WHERE tile_id = old.id; END
        """,
        """
        CREATE TRIGGER IF NOT EXISTS packfs_tile_sizes_delete AFTER DELETE ON tiles
        BEGIN DELETE FROM packfs_tile_sizes WHERE tile_id = old.id; END
        """,
        // Per tile set of a pack: its martin `agg_tiles_hash` and tile count when it last became whole.
        """
        CREATE TABLE IF NOT EXISTS packfs_pack_hashes (
          region_id INTEGER NOT NULL REFERENCES regions(id) ON DELETE CASCADE,
          url_template TEXT NOT NULL,
          pixel_ratio INTEGER NOT NULL,
          hash TEXT NOT NULL,
          tiles INTEGER NOT NULL,
          recorded INTEGER NOT NULL,
          rule INTEGER NOT NULL DEFAULT 1,
          UNIQUE (region_id, url_template, pixel_ratio)
        )
        """,
        // A pack whose hashes are owed, computed in the background (PendingHashes.swift); `token` names the request.
        """
        CREATE TABLE IF NOT EXISTS packfs_pending_hashes (
          region_id INTEGER NOT NULL PRIMARY KEY REFERENCES regions(id) ON DELETE CASCADE,
          token INTEGER NOT NULL
        )
        """,
        // What the pack was estimated to need when its download was planned (PackEstimate.swift).
        """
        CREATE TABLE IF NOT EXISTS packfs_estimate (
          region_id INTEGER NOT NULL PRIMARY KEY REFERENCES regions(id) ON DELETE CASCADE,
          json TEXT NOT NULL
        )
        """,
    ] + Staging.statements  // what a refresh fetched, until its switch (Staging.swift)
        + PackTiles.statements  // each pack's tiles by key, for listings (PackTiles.swift)
}
