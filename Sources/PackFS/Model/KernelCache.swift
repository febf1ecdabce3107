/// The kernel's caches of names, attributes and file content, as the model sees them: when a
/// node changes behind the kernel's back (a download adds a tile, a pack is renamed), the model
/// tells the kernel to forget what it cached. The FUSE bridge implements it with the kernel's
/// invalidation notifications; calls are cheap, never block and may come from any thread,
/// including from inside a filesystem operation.
public protocol KernelCache: AnyObject, Sendable {
    /// Forget the attributes and cached content (pages, a directory's listing) of `inode`.
    func invalidate(inode: Inode)
    /// Forget that `name` in `parent` maps to an inode (or to nothing), and `parent`'s attributes.
    func invalidate(parent: Inode, name: String)
    /// The same for many nodes, sent from the caller's thread before this returns: for a change
    /// whose very request must not return before the kernel has forgot (a patch's write). Only
    /// for nodes whose locks the caller's request does not hold (never its own file or parent).
    func invalidateNow(inodes: [Inode], entries: [(parent: Inode, name: String)])
    /// Waits up to `seconds` for the invalidations asked for so far to reach the kernel. Never
    /// from a FUSE thread (one asked for inside a request goes out after its reply).
    func settle(within seconds: Double)
}

extension KernelCache {
    /// A cache whose invalidations take effect at once has nothing to wait for.
    public func settle(within seconds: Double) {}
}
