// Downloader: a region definition becomes a complete pack.
//
// Pipeline. Region file -> `RegionDefinition` (PackStore) -> style walk (style, TileJSON, sprites,
// glyphs, tile sources) -> tile cover per source and zoom -> HTTP (libcurl multi) -> batched writes
// into the offline database, with progress, resume, refresh and limits.
