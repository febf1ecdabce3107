// PackFS: the filesystem model of the mount (DESIGN section 2), over PackStore only; no FUSE here
// (FUSEBridge calls the `Filesystem` protocol) and no HTTP (region files reach the downloader
// through `PackController`, wired by the executable).
//
// Concepts. The tree is built on demand through lookup, never preloaded (go-fuse style): a pack
// has millions of tiles. Each node's inode says what it names (`InodeCodec`: pack, source, z, x,
// or a tile/resource row id; the bit layout is documented there), so there is no inode table and
// `forget` has nothing to do. A pack's shape (tiled sources in style order, templates, glyphs,
// sprites) comes from its stored style and TileJSON (`PackLayout`); directories are listed by
// indexed queries (`TreeQueries.swift` in PackStore) one page at a time with stable cookies.
//
// Caching. Decoded sizes and small contents by inode (`ContentCache`, bounded) so `st_size` is
// exact without decoding twice; parsed layouts for a second. The kernel keeps immutable content
// (tiles, glyphs, sprites, TileJSON, a complete pack's style) an hour with keep_cache; live files
// (status.json, progress.json, region files) are never cached. The root's two names and packs/'s
// own attributes never change, so a path walk costs no lookup once warm.
//
// Changes (Write/). Region files are written into in-memory drafts (`RegionDrafts`) and judged
// by the pack manager at the write that completes their JSON text; a rejection fails that write
// with EINVAL and shows as `packs/<name>.error`. (Not at close(): FLUSH is off, see RegionFiles.) Removal, rename, touch and the state xattr go to the manager or the
// store, then the model's and the kernel's caches (`KernelCache`) forget the names involved.
// Inside a pack only removal works (so `rm -r` empties a pack, see `Vacancies`); every other
// change is EROFS there, EPERM elsewhere.
//
// Threading. Every method may run on any FUSE thread at once; shared state sits behind locks and
// reads go to the WAL snapshot of a `.session` database, so they never wait for a download.
//
// Errors. `FilesystemError` only (the one errno table); a store or decoding failure becomes
// `.io` with its cause, an inode whose pack or row is gone `.stale`.
