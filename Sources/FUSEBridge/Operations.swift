import CFuse
import FoundationEssentials
import PackFS

#if canImport(Glibc)
    import Glibc
#endif

/// The one operations table (see FUSEBridge.swift); entries left nil get libfuse's default (mostly ENOSYS).
enum Operations {
    static func table() -> fuse_lowlevel_ops {
        var ops = fuse_lowlevel_ops()
        ops.`init` = { userdata, connection in
            guard let userdata, let connection else { return }
            let context = Unmanaged<MountContext>.fromOpaque(userdata).takeUnretainedValue()
            context.agreement = context.caching.negotiate(&connection.pointee)
            if context.agreement.statelessOpen { context.filesystem.useStatelessOpens() }
        }
        ops.lookup = { req, parent, name in
            // A tile's, first on its own short path; it makes no notification to hold back.
            if let context = MountContext.of(req), let name,
                let quick = context.filesystem.quickLookup(
                    parent: Inode(parent), name: FUSEBridge.bytes(of: name), caller: MountContext.caller(req))
            {
                return quick.reply.send(req)
            }
            MountContext.serve(req, "lookup") { context, caller in
                .entry(try context.filesystem.lookup(parent: Inode(parent), name: try FUSEBridge.name(name), caller: caller))
            }
        }
        ops.forget = { req, inode, lookups in
            MountContext.of(req)?.filesystem.forget(inode: Inode(inode), lookups: lookups)
            fuse_reply_none(req)
        }
        ops.forget_multi = { req, count, forgets in
            if let context = MountContext.of(req), let forgets {
                for item in UnsafeBufferPointer(start: forgets, count: count) {
                    context.filesystem.forget(inode: Inode(item.ino), lookups: item.nlookup)
                }
            }
            fuse_reply_none(req)
        }
        ops.getattr = { req, inode, _ in
            MountContext.serve(req, "getattr") { context, caller in
                .attributes(try context.filesystem.getattr(inode: Inode(inode), caller: caller))
            }
        }
        ops.opendir = { req, inode, file in
            MountContext.serve(req, "opendir", file: file) { context, caller in
                if context.agreement.statelessOpendir { return .error(ENOSYS) }
                return .open(try context.filesystem.opendir(inode: Inode(inode), caller: caller))
            }
        }
        ops.readdir = { req, inode, size, offset, _ in
            MountContext.serve(req, "readdir") { context, caller in
                let entries = try context.filesystem.readdir(
                    inode: Inode(inode), offset: Int64(offset), limit: DirectoryBuffer.capacity(size), caller: caller)
                return .bytes(DirectoryBuffer.fill(req, size: size, entries: entries))
            }
        }
        ops.readdirplus = { req, inode, size, offset, _ in
            MountContext.serve(req, "readdirplus") { context, caller in
                .bytes(try DirectoryBuffer.fillPlus(req, size: size) { add in
                    try context.filesystem.readdirPlus(
                        inode: Inode(inode), offset: Int64(offset), limit: DirectoryBuffer.plusCapacity(size),
                        caller: caller, into: add)
                })
            }
        }
        ops.open = { req, inode, file in
            MountContext.serve(req, "open", file: file) { context, caller in
                // ENOSYS is how a filesystem tells the kernel to stop sending opens (see KernelCaching).
                if context.agreement.statelessOpen { return .error(ENOSYS) }
                return .open(try context.filesystem.open(inode: Inode(inode), flags: file?.pointee.flags ?? 0, caller: caller))
            }
        }
        ops.read = { req, inode, size, offset, file in
            // A tile's just looked up, first on its own short path, as its lookup.
            if let context = MountContext.of(req),
                let kept = context.filesystem.quickRead(inode: Inode(inode), offset: Int64(offset), size: size)
            {
                return Reply.bytes(kept).send(req)
            }
            MountContext.serve(req, "read") { context, _ in
                .bytes(try context.filesystem.read(inode: Inode(inode), handle: file?.pointee.fh ?? 0, offset: Int64(offset), size: size))
            }
        }
        ops.release = { req, inode, file in
            MountContext.serve(req, "release") { context, _ in
                context.filesystem.release(inode: Inode(inode), handle: file?.pointee.fh ?? 0)
                return .done
            }
        }
        ops.statfs = { req, _ in
            MountContext.serve(req, "statfs") { context, _ in .statistics(try context.filesystem.statfs()) }
        }
        addChanges(to: &ops)
        addExtendedAttributes(to: &ops)
        return ops
    }
}

/// A readdir reply: the entries that fit in the kernel's buffer, each cookie the offset to continue from.
enum DirectoryBuffer {
    /// The smallest record fuse_add_direntry writes: a 24-byte header plus a name, 8-byte aligned.
    static func capacity(_ size: Int) -> Int { max(1, size / 32) }

    static func fill(_ req: fuse_req_t?, size: Int, entries: [DirectoryEntry]) -> Data {
        fill(size: size, entries) { entry, buffer, room in
            var status = stat()
            status.st_ino = ino_t(entry.inode.rawValue)
            status.st_mode = entry.kind.fileType
            return entry.name.withCString { fuse_add_direntry(req, buffer, room, $0, &status, off_t(entry.cookie)) }
        }
    }

    /// Entries of a readdirplus page: a 152-byte header plus a short (tile) name, so that few
    /// lookups are wasted on entries that do not fit.
    static func plusCapacity(_ size: Int) -> Int { max(1, size / 168) }

    /// A readdirplus reply, written as `list` puts each entry: no buffer cleared first (each entry writes all of
    /// its bytes, padding included) and no array of entries. An entry without attributes (`.`, `..`, one that
    /// went) goes with inode 0, which the kernel lists without instantiating.
    static func fillPlus(_ req: fuse_req_t?, size: Int, _ list: (PlusSink) throws -> Void) rethrows -> Data {
        guard size > 0 else { return Data() }
        let buffer = UnsafeMutablePointer<CChar>.allocate(capacity: size)
        defer { buffer.deallocate() }
        var used = 0
        try list { name, inode, kind, entry, cookie in
            var param = fuse_entry_param()
            if let entry {
                param = entry.param
            } else {
                param.attr.st_ino = ino_t(inode.rawValue)
                param.attr.st_mode = kind.fileType
            }
            let needed = fuse_add_direntry_plus(req, buffer + used, size - used, name, &param, off_t(cookie))
            guard needed <= size - used else { return false }
            used += needed
            return true
        }
        return Data(bytes: buffer, count: used)
    }

    /// A buffer of `size` bytes filled by `add` (which returns the size it needs) until one does not fit.
    private static func fill<Item>(
        size: Int, _ items: [Item], _ add: (Item, UnsafeMutablePointer<CChar>, Int) -> Int
    ) -> Data {
        guard size > 0 else { return Data() }
        var buffer = [CChar](repeating: 0, count: size)
        var used = 0
        buffer.withUnsafeMutableBufferPointer { memory in
            guard let base = memory.baseAddress else { return }
            for item in items {
                let needed = add(item, base + used, size - used)
                if needed > size - used { break }
                used += needed
            }
        }
        return buffer.withUnsafeBytes { Data($0.prefix(used)) }
    }
}
