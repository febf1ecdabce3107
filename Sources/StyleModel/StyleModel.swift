// StyleModel: what a MapLibre style means for a pack, in one place for the downloader (which
// fetches by it) and the mount (which shows what was fetched by it). A rule written twice drifts,
// and a drift between the two hides downloaded data from the tree.
//
// Concepts. `Style` reads a style document: its sources in document order (`StyleSource`: tiled,
// GeoJSON with a `data` URL, image), sprite sheets (`SpriteSheet`, four files each), the glyphs
// template (`GlyphTemplate`) and the font stacks symbol layers can ask for (`FontStacks`). A tiled
// source becomes a `TileSource` once its TileJSON is known (`TileSetFields`, with the clamps
// applied where the values are read); a `TileSource` gives each tile its stored key
// (`TileURLTemplate`: first template, key pixel ratio, requested row) and its URL, and says which
// zooms a region needs. `Style.primary(of:)` picks the source the pack's top directory shows.
//
// URLs are plain text (`URLString`), never Foundation's `URL`, which rejects `{z}` templates and
// re-encodes: a stored key is the URL as the style names it, resolved against its document
// (RFC 3986) and vetted (`References`: only http, https and mapbox). `mapbox://` URLs stay in that
// form; `MapboxURL` knows MapLibre's segments and canonical tile templates.
//
// Nothing here does I/O: callers hand in the bytes of the style and TileJSON documents, fetched
// (downloader) or stored (mount). Everything is a value type, safe on any thread.
//
// Errors. `StyleError`, each case naming the document's URL and the field.
