// PackFS: the filesystem model of the mount (docs/design.md §2), over PackStore and StyleModel; no
// FUSE here (FUSEBridge calls the `Filesystem` protocol) and no HTTP (region files and pack
// commands reach the pack manager through `PackController`, wired by the executable).
//
// Concepts. The tree is built on demand through lookup, never preloaded: a pack has millions of
// tiles. Each inode says what it names (`InodeCodec`), so there is no inode table and `forget` has
// nothing to do. A pack's shape comes from its stored style and TileJSON, read as the downloader
// read them (`PackLayout`), so the tree shows what was stored and nothing else. Directories are
// listed by indexed queries (`TreeQueries.swift` in PackStore) a page at a time with stable
// cookies. With a web base the root also shows `packs.json` and the web page (Web/).
//
// Caching. `TreeCaches` holds sizes, contents and layouts, and tells the kernel's caches; a change
// forgets the one pack it concerns. The store caches the pack list and states; a `Request` reads
// each at most once. The kernel keeps immutable content (tiles, glyphs, sprites, TileJSON, a
// complete pack's style) an hour, and with stateless opens every file's pages until told: live
// files have zero attribute timeouts and an mtime derived from their content (`liveFile`).
//
// Changes (Write/). Region files are written into in-memory drafts; the write that decides the
// text submits it to the pack manager, and a refusal fails that write with EINVAL and shows as
// `packs/<name>.error` (see `PackFilesystem+RegionFiles.swift`). Removal, rename, touch and the
// state xattr go to the manager or the store, then `TreeCaches` forgets the names involved.
// Inside a pack only removal works (so `rm -r` empties a pack, see `Vacancies`); every other
// change is EROFS there, EPERM elsewhere.
//
// Threading. Every method may run on any FUSE thread at once. Shared state sits in lock-guarded
// parts, and reads go to the WAL snapshot of a `.mount` database, so they never wait for a download.
//
// Errors. `FilesystemError` only (the one errno table); any other failure becomes `.io` with its
// cause, once per request (`serving`); an inode whose pack or row is gone, `.stale`.
