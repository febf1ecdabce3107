import CFuse
import FoundationEssentials
import PackFS

#if canImport(Glibc)
    import Glibc
#endif

/// The entries that change the tree or its xattrs (docs/design.md §2, "Management with ordinary tools").
extension Operations {
    static func addChanges(to ops: inout fuse_lowlevel_ops) {
        ops.create = { req, parent, name, mode, file in
            MountContext.serve(req, "create", file: file) { context, caller in
                let (entry, options) = try context.filesystem.create(
                    parent: Inode(parent), name: try FUSEBridge.name(name), mode: mode,
                    flags: file?.pointee.flags ?? 0, caller: caller)
                return .create(entry, options)
            }
        }
        ops.write = { req, inode, bytes, size, offset, file in
            MountContext.serve(req, "write") { context, _ in
                let data = bytes.map { Data(bytes: $0, count: size) } ?? Data()
                return .written(try context.filesystem.write(
                    inode: Inode(inode), handle: file?.pointee.fh ?? 0, offset: Int64(offset), data: data))
            }
        }
        // FLUSH comes at every close(), a round trip per tile read, and the model has nothing to do
        // then (region files are judged by the write that decides them): ENOSYS stops it for good.
        ops.flush = { req, _, _ in Reply.error(ENOSYS).send(req) }
        ops.unlink = { req, parent, name in
            MountContext.serve(req, "unlink") { context, caller in
                try context.filesystem.unlink(parent: Inode(parent), name: try FUSEBridge.name(name), caller: caller)
                return .done
            }
        }
        ops.rmdir = { req, parent, name in
            MountContext.serve(req, "rmdir") { context, caller in
                try context.filesystem.rmdir(parent: Inode(parent), name: try FUSEBridge.name(name), caller: caller)
                return .done
            }
        }
        ops.mkdir = { req, parent, name, mode in
            MountContext.serve(req, "mkdir") { context, caller in
                .entry(try context.filesystem.mkdir(parent: Inode(parent), name: try FUSEBridge.name(name), mode: mode, caller: caller))
            }
        }
        ops.symlink = { req, target, parent, name in
            MountContext.serve(req, "symlink") { context, caller in
                .entry(try context.filesystem.symlink(
                    target: try FUSEBridge.name(target), parent: Inode(parent), name: try FUSEBridge.name(name), caller: caller))
            }
        }
        ops.link = { req, inode, newParent, newName in
            MountContext.serve(req, "link") { context, caller in
                .entry(try context.filesystem.link(
                    inode: Inode(inode), newParent: Inode(newParent), newName: try FUSEBridge.name(newName), caller: caller))
            }
        }
        ops.mknod = { req, parent, name, mode, _ in
            MountContext.serve(req, "mknod") { context, caller in
                .entry(try context.filesystem.mknod(parent: Inode(parent), name: try FUSEBridge.name(name), mode: mode, caller: caller))
            }
        }
        ops.rename = { req, parent, name, newParent, newName, flags in
            MountContext.serve(req, "rename") { context, caller in
                // RENAME_EXCHANGE and RENAME_NOREPLACE are not part of the model's rename.
                guard flags == 0 else { return .error(EINVAL) }
                try context.filesystem.rename(parent: Inode(parent), name: try FUSEBridge.name(name),
                                              newParent: Inode(newParent), newName: try FUSEBridge.name(newName), caller: caller)
                return .done
            }
        }
        ops.setattr = { req, inode, status, fields, _ in
            MountContext.serve(req, "setattr") { context, caller in
                let changes = AttributeChanges(status, fields: fields)
                return .attributes(try context.filesystem.setattr(inode: Inode(inode), changes: changes, caller: caller))
            }
        }
    }

    static func addExtendedAttributes(to ops: inout fuse_lowlevel_ops) {
        ops.getxattr = { req, inode, name, size in
            MountContext.serve(req, "getxattr") { context, _ in
                Operations.sized(try context.filesystem.getxattr(inode: Inode(inode), name: try FUSEBridge.name(name)), limit: size)
            }
        }
        ops.setxattr = { req, inode, name, value, size, _ in
            MountContext.serve(req, "setxattr") { context, caller in
                let data = value.map { Data(bytes: $0, count: size) } ?? Data()
                try context.filesystem.setxattr(inode: Inode(inode), name: try FUSEBridge.name(name), value: data, caller: caller)
                return .done
            }
        }
        ops.removexattr = { req, inode, name in
            MountContext.serve(req, "removexattr") { context, caller in
                try context.filesystem.removexattr(inode: Inode(inode), name: try FUSEBridge.name(name), caller: caller)
                return .done
            }
        }
        ops.listxattr = { req, inode, size in
            MountContext.serve(req, "listxattr") { context, _ in
                let names = try context.filesystem.listxattr(inode: Inode(inode))
                return Operations.sized(Data(names.flatMap { Array($0.utf8) + [0] }), limit: size)
            }
        }
    }

    /// xattr replies: size 0 is a probe for the needed size; a too-small buffer is ERANGE.
    static func sized(_ data: Data, limit: Int) -> Reply {
        if limit == 0 { return .xattrSize(data.count) }
        return data.count > limit ? .error(ERANGE) : .bytes(data)
    }
}

extension AttributeChanges {
    /// The fields `to_set` names, with "now" resolved here (FUSE_SET_ATTR_*_NOW carry no time).
    init(_ status: UnsafeMutablePointer<stat>?, fields: Int32) {
        self.init()
        guard let status = status?.pointee else { return }
        let now = Int64(time(nil))
        func has(_ flag: Int32) -> Bool { fields & flag != 0 }
        if has(FUSE_SET_ATTR_MODE) { mode = status.st_mode & 0o7777 }
        if has(FUSE_SET_ATTR_UID) { uid = status.st_uid }
        if has(FUSE_SET_ATTR_GID) { gid = status.st_gid }
        if has(FUSE_SET_ATTR_SIZE) { size = UInt64(clamping: status.st_size) }
        if has(FUSE_SET_ATTR_ATIME | FUSE_SET_ATTR_ATIME_NOW) { accessed = has(FUSE_SET_ATTR_ATIME_NOW) ? now : Int64(status.st_atim.tv_sec) }
        if has(FUSE_SET_ATTR_MTIME | FUSE_SET_ATTR_MTIME_NOW) { modified = has(FUSE_SET_ATTR_MTIME_NOW) ? now : Int64(status.st_mtim.tv_sec) }
    }
}
