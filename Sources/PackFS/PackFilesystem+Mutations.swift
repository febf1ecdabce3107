import Foundation
import PackStore

/// Changes: all refused for now, each with the errno DESIGN section 2 prescribes for it. Inside a
/// pack everything is read-only (EROFS); at the top and in `packs/` (where region files will be
/// writable) the operation is not permitted yet (EPERM). The write side replaces these with
/// region-file handling that ends in `sink`.
extension PackFilesystem {
    public func create(parent: Inode, name: String, mode: UInt32, flags: Int32, caller: Caller)
        throws -> (Entry, OpenOptions)
    {
        throw try refusal(under: parent)
    }

    public func write(inode: Inode, handle: UInt64, offset: Int64, data: Data) throws -> Int {
        throw try refusal(at: inode)
    }

    /// Nothing is ever open for writing, so a close has nothing to act on.
    public func flush(inode: Inode, handle: UInt64) throws {}

    public func unlink(parent: Inode, name: String, caller: Caller) throws { throw try refusal(under: parent) }

    public func rmdir(parent: Inode, name: String, caller: Caller) throws { throw try refusal(under: parent) }

    public func mkdir(parent: Inode, name: String, mode: UInt32, caller: Caller) throws -> Entry {
        throw try refusal(under: parent)
    }

    public func rename(parent: Inode, name: String, newParent: Inode, newName: String, caller: Caller) throws {
        throw try refusal(under: parent)
    }

    public func setattr(inode: Inode, changes: AttributeChanges, caller: Caller) throws -> Attributes {
        throw try refusal(at: inode)
    }

    public func getxattr(inode: Inode, name: String) throws -> Data {
        _ = try getattr(inode: inode, caller: Caller(uid: uid, gid: gid, pid: 0))
        throw FilesystemError.noAttribute
    }

    public func setxattr(inode: Inode, name: String, value: Data, caller: Caller) throws {
        throw try refusal(at: inode)
    }

    public func listxattr(inode: Inode) throws -> [String] {
        _ = try getattr(inode: inode, caller: Caller(uid: uid, gid: gid, pid: 0))
        return []
    }

    /// The error for changing a child of `parent`.
    func refusal(under parent: Inode) throws -> FilesystemError {
        let node = try node(parent)
        return node.region == nil ? .notPermitted : .readOnly
    }

    /// The error for changing `inode` itself.
    func refusal(at inode: Inode) throws -> FilesystemError {
        let node = try node(inode)
        switch node {
        case .pack(_, .regionFile), .pack(_, .directory): return .notPermitted
        default: return node.region == nil ? .notPermitted : .readOnly
        }
    }
}
