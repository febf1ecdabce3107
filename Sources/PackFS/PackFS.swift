// PackFS: the filesystem model of the mount (docs/design.md §2), over PackStore and StyleModel; no
// FUSE here (FUSEBridge calls the `Filesystem` protocol) and no HTTP (region files and pack
// commands reach the pack manager through `PackController`, wired by the executable).
//
// Concepts. The tree is built on demand through lookup, never preloaded (go-fuse style): a pack
// has millions of tiles. Each node's inode says what it names (`InodeCodec`: pack, source, z, x,
// or a tile/resource row id; the bit layout is documented there), so there is no inode table and
// `forget` has nothing to do. A pack's shape comes from its stored style and TileJSON, read by
// StyleModel as the downloader read them to fetch (`PackLayout`: sources in style order with their
// tile keys, the primary source, glyph and sprite files), so the tree shows what was stored and
// nothing else. Directories are listed by indexed queries (`TreeQueries.swift` in PackStore) one
// page at a time with stable cookies. With a web base the root also shows `packs.json` and the web
// page (Web/: `WebPage`, its files read once when the mount starts and served from memory).
//
// Caching. `TreeCaches` holds decoded sizes and small contents by inode (`ContentCache`, bounded,
// so `st_size` is exact without decoding twice), layouts parsed at most once a second, and the
// kernel's caches (`KernelCache`); a change forgets the entries of the one pack it concerns. The
// store caches the pack list and each pack's state until it writes them. Within one request a
// `Request` reads the pack, its layout and its state at most once, whatever the steps. The
// kernel keeps immutable content (tiles, glyphs, sprites, TileJSON, a complete pack's style) an
// hour; opens are stateless, so it keeps every file's pages
// until told otherwise: live files (status.json, progress.json, region files) have zero attribute
// timeouts and an mtime derived from their content, so a new content drops the old pages at the
// next getattr. The root's two names and packs/'s own attributes never change, so a warm path
// walk costs no lookup.
//
// Changes (Write/). Region files are written into in-memory drafts (`RegionDrafts`); the write that
// decides the JSON text (`RegionTextScan`) submits it to the pack manager
// (`PackController.regionFileSubmitted`), and a refusal fails that write with EINVAL and shows as
// `packs/<name>.error`. (Not at close(): FLUSH is off, see RegionFiles.) Removal, rename, touch and
// the state xattr go to the manager or the store, then `TreeCaches` forgets the names involved.
// Inside a pack only removal works (so `rm -r` empties a pack, see `Vacancies`); every other
// change is EROFS there, EPERM elsewhere.
//
// Threading. Every method may run on any FUSE thread at once. `PackFilesystem` holds only what it
// was built with; shared state sits in lock-guarded parts (`LockedState`), and reads go to the WAL
// snapshot of a `.mount` database, so they never wait for a download.
//
// Errors. `FilesystemError` only (the one errno table); a store or decoding failure becomes
// `.io` with its cause, once per request (`serving`), an inode whose pack or row is gone `.stale`
// (ENOENT: see its comment).
