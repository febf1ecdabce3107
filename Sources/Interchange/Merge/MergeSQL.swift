/// The SQL a merge shares: the columns read, how a side row meets its target row, which side rows it takes at all. In
/// every statement `st`/`sr` is a side row, `t`/`r` a target row (schema `main`; the side file is attached as `side`).
enum MergeSQL {
    /// Columns read from each side table (all present in schema version 6).
    static let columns: [(table: String, columns: [String])] = [
        ("tiles", ["id", "url_template", "pixel_ratio", "z", "x", "y"] + content),
        ("resources", ["id", "url", "kind"] + content),
        ("regions", ["id", "definition", "description"]),
        ("region_tiles", ["region_id", "tile_id"]),
        ("region_resources", ["region_id", "resource_id"]),
    ]

    static let content = ["expires", "modified", "etag", "data", "compressed", "accessed", "must_revalidate"]

    /// A tile's key: (template, pixel ratio, z, x, y), through the target's unique index.
    static let sameTile = """
        t.url_template = st.url_template AND t.pixel_ratio = st.pixel_ratio
          AND t.z = st.z AND t.x = st.x AND t.y = st.y
        """

    static let sameResource = "r.url = sr.url"

    /// SQLite checks no column types: an app's file may key a tile by text or a fraction. Such rows could never be
    /// requested or shown; they stay behind, counted.
    static let wellTypedTile = """
        typeof(st.url_template) = 'text' AND typeof(st.pixel_ratio) = 'integer'
          AND typeof(st.z) = 'integer' AND typeof(st.x) = 'integer' AND typeof(st.y) = 'integer'
        """

    static let wellTypedResource = "typeof(sr.url) = 'text' AND typeof(sr.kind) = 'integer'"

    /// The side's data is newer: a later `modified` (the server's Last-Modified); a row without one is older than any
    /// that has one, and on a tie the target's row stays (MapLibre's rule, which compares `modified` alone).
    static func sideIsNewer(_ side: String, _ target: String) -> String {
        "COALESCE(\(side).modified, -1) > COALESCE(\(target).modified, -1)"
    }

    /// The mapping of side regions to target regions, for the membership statements.
    static let regionMap = "temp.packfs_merge_regions"
}
