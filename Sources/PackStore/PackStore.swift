// PackStore: MapLibre Native's offline database (schema v6), and nothing of FUSE or HTTP.
//
// Concepts. A *resource* is a style, TileJSON, sprite, glyph range or image, keyed by its URL as the
// style names it. A *tile* is keyed by (first `tiles` template, pixel ratio, z, x, y). A *pack* is a
// row of `regions`; its membership rows in `region_resources` / `region_tiles` say which resources
// and tiles it holds. Rows that no pack holds are the *ambient cache*, trimmed to a byte limit.
//
// Storage. `data` is zlib (RFC 1950) with `compressed = 1` only when that is strictly smaller; NULL
// data means "no content" (a 404 or 204 tile). Timestamps are Unix seconds. Updates keep row ids.
//
// Bookkeeping. PackFS keeps its own facts (pack state, settings, estimates) in `packfs_*` tables,
// created the first time they are written, so a fresh database is exactly MapLibre's schema.
//
// Threading. `OfflineDatabase` wraps a SQLiteDB pool (WAL while a mount holds it, so readers never wait
// for the downloader) or a queue (one-shot commands, file left in MapLibre's DELETE journal mode).
// Every change is one transaction.
//
// Errors. Everything thrown is a `StoreError` that names what failed and where.
