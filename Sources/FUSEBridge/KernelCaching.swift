import CFuse
import PackFS

/// How much the kernel may cache, and the capabilities `init` asks for:
///
/// - `statelessOpen` (FUSE_CAP_NO_OPEN_SUPPORT): after one ENOSYS the kernel sends no open or
///   release for files and opens each as FOPEN_KEEP_CACHE with handle 0, so pages stay cached until
///   invalidated or getattr shows a new mtime or size; `Filesystem.open`'s answer is ignored.
///   `packfs mount` turns it on, so a warm tile read costs the daemon nothing; live files carry
///   mtimes derived from their content, and region files get implicit drafts. Off by default, for
///   models that need open state. (Tried: KEEP_CACHE and NOFLUSH opens for tiles, several times
///   slower warm: docs/benchmarks.md, "Designs measured and set aside".)
/// - `statelessOpendir`: the same for directories; the kernel then also caches listings, so a model
///   that grows them must invalidate the directory. Off by default: `Filesystem.opendir` says per
///   directory whether the kernel caches its listing and keeps it over that open.
/// - READDIRPLUS on every page (READDIRPLUS_AUTO refused: it helps only walkers that stat as they
///   read, not `du` or `ls`), so a walk costs a message per page, not a lookup per file. An entry
///   with attributes costs the kernel an inode and a lookup reference, so tile columns give them
///   only to a process that looked a tile up (`StatWalkers`): `du` gets sizes, `find` pays nothing.
/// - Always: ASYNC_READ, AUTO_INVAL_DATA, PARALLEL_DIROPS; ATOMIC_O_TRUNC only with opens.
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
