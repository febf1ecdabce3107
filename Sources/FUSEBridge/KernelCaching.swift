import CFuse
import PackFS

/// How much the kernel may cache, and the capabilities `init` asks for. Kernel facts behind each:
///
/// - `statelessOpen` (FUSE_CAP_NO_OPEN_SUPPORT): `open` answers ENOSYS once and the kernel never
///   sends open or release for files again on this connection. It then opens every file as if the
///   reply had been FOPEN_KEEP_CACHE with handle 0 (fs/fuse/file.c, "default for no-open"): pages
///   stay cached across opens until `KernelCache.invalidate(inode:)` or an mtime/size change seen
///   by getattr (auto_inval_data). `Filesystem.open`'s direct I/O and handles are then ignored and
///   `release` is never called. `packfs mount` turns it on, so a warm tile read costs the daemon
///   nothing; the model makes up for what it gives up: live files (progress.json, status.json,
///   region files) carry mtime nanoseconds derived from their content, so a new content drops the
///   old pages at the next getattr, and a region file written with handle 0 gets an implicit draft,
///   judged at the write that decides its text. Off by default, for models that need open state
///   (the test filesystems). (Tried for tiles: opens answered with KEEP_CACHE and NOFLUSH, several
///   times slower on warm reads: docs/benchmarks.md, "Designs measured and set aside".)
/// - `statelessOpendir` (FUSE_CAP_NO_OPENDIR_SUPPORT): the same for directories; the kernel then
///   also caches listings (FOPEN_CACHE_DIR) until the directory is invalidated or its mtime
///   changes, so a model that grows listings must invalidate the directory. Off by default.
/// - READDIRPLUS is on for every page (FUSE_CAP_READDIRPLUS asked, READDIRPLUS_AUTO refused: that
///   heuristic gives attributes after a directory's first page only to a walker that stats as it
///   reads, not to `du` or `ls`, which read the whole directory first), so a walk costs a message
///   per page of entries rather than a lookup per file. An entry with attributes makes the kernel
///   build an inode and a dentry and holds a lookup reference, so in a tile column the model gives
///   them only to a process that has looked a tile up (`StatWalkers`), names alone (inode 0) to
///   others (`PackFilesystem.readdirPlus`): `du` gets its sizes with the listings, `find` pays
///   nothing.
/// - Always asked: FUSE_CAP_ASYNC_READ (parallel reads of one file, needed by the multithreaded
///   loop to help), FUSE_CAP_AUTO_INVAL_DATA (drop cached pages when getattr shows a new
///   mtime or size), FUSE_CAP_PARALLEL_DIROPS (lookups and readdirs in one directory run
///   concurrently). FUSE_CAP_ATOMIC_O_TRUNC (`open(O_TRUNC)` arrives as an open flag) only with
///   opens: with stateless opens no OPEN carries the flag, and the truncate arrives as a setattr.
///   Never: writeback cache (a region file's verdict must see every write in order) and splice
///   (replies are small buffers).
public struct KernelCaching: Sendable, Equatable {
    public var statelessOpen: Bool
    public var statelessOpendir: Bool
    /// Upper bound on the kernel's readahead per file, in bytes.
    public var maxReadahead: UInt32

    public init(statelessOpen: Bool = false, statelessOpendir: Bool = false,
                maxReadahead: UInt32 = 128 * 1024) {
        self.statelessOpen = statelessOpen
        self.statelessOpendir = statelessOpendir
        self.maxReadahead = maxReadahead
    }

    /// What the kernel agreed to: stateless opens only work where the kernel supports them.
    struct Agreement: Equatable {
        var statelessOpen = false
        var statelessOpendir = false
    }

    func negotiate(_ connection: inout fuse_conn_info) -> Agreement {
        let capable = connection.capable
        var wanted = UInt32(FUSE_CAP_ASYNC_READ | FUSE_CAP_AUTO_INVAL_DATA | FUSE_CAP_PARALLEL_DIROPS)
        // With stateless opens no OPEN carries O_TRUNC, so the truncate must arrive as a setattr.
        wanted |= statelessOpen ? UInt32(FUSE_CAP_NO_OPEN_SUPPORT) : UInt32(FUSE_CAP_ATOMIC_O_TRUNC)
        if statelessOpendir { wanted |= UInt32(FUSE_CAP_NO_OPENDIR_SUPPORT) }
        wanted |= UInt32(FUSE_CAP_READDIRPLUS)
        var refused = UInt32(FUSE_CAP_WRITEBACK_CACHE | FUSE_CAP_READDIRPLUS_AUTO)
        // libfuse wants ATOMIC_O_TRUNC by default; with stateless opens it would swallow O_TRUNC.
        if statelessOpen { refused |= UInt32(FUSE_CAP_ATOMIC_O_TRUNC) }
        connection.want = (connection.want | (wanted & capable)) & ~refused
        connection.max_readahead = min(connection.max_readahead, maxReadahead)
        return Agreement(
            statelessOpen: connection.want & UInt32(FUSE_CAP_NO_OPEN_SUPPORT) != 0,
            statelessOpendir: connection.want & UInt32(FUSE_CAP_NO_OPENDIR_SUPPORT) != 0)
    }
}
