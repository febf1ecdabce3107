import Foundation
import PackFS

/// The changes `MemoryFilesystem` allows: files in the root are created, written, renamed and
/// removed; `empty` can be removed; everything else refuses.
extension MemoryFilesystem {
    func create(parent: Inode, name: String, mode: UInt32, flags: Int32, caller: Caller) throws -> (Entry, OpenOptions) {
        try lock.withLock {
            guard parent == .root else { throw FilesystemError.readOnly }
            guard child(of: parent, named: name) == nil else { throw FilesystemError.exists }
            let inode = insert(name, in: parent, kind: .regularFile, permissions: 0o644, content: Data())
            let entry = Entry(attributes: try attributes(inode), entryTimeout: Self.timeout, attributeTimeout: Self.timeout)
            return (entry, OpenOptions(keepCache: false, directIO: true, handle: inode.rawValue))
        }
    }

    func write(inode: Inode, handle: UInt64, offset: Int64, data: Data) throws -> Int {
        try lock.withLock {
            var node = try node(inode)
            guard node.permissions & 0o200 != 0 else { throw FilesystemError.readOnly }
            if node.name.hasSuffix(".bad") { throw FilesystemError.invalid("rejected by the test") }
            let end = Int(offset) + data.count
            if node.content.count < end { node.content.append(Data(count: end - node.content.count)) }
            node.content.replaceSubrange(Int(offset)..<end, with: data)
            nodes[inode] = node
            return data.count
        }
    }

    func unlink(parent: Inode, name: String, caller: Caller) throws {
        try lock.withLock {
            guard let inode = child(of: parent, named: name) else { throw FilesystemError.notFound }
            guard try node(inode).permissions & 0o200 != 0 else { throw FilesystemError.readOnly }
            detach(inode, from: parent)
        }
    }

    func rmdir(parent: Inode, name: String, caller: Caller) throws {
        try lock.withLock {
            guard let inode = child(of: parent, named: name) else { throw FilesystemError.notFound }
            guard try node(inode).children.isEmpty else { throw FilesystemError.notEmpty }
            detach(inode, from: parent)
        }
    }

    func mkdir(parent: Inode, name: String, mode: UInt32, caller: Caller) throws -> Entry {
        throw FilesystemError.readOnly
    }

    func symlink(target: String, parent: Inode, name: String, caller: Caller) throws -> Entry {
        throw FilesystemError.readOnly
    }

    func link(inode: Inode, newParent: Inode, newName: String, caller: Caller) throws -> Entry {
        throw FilesystemError.readOnly
    }

    func mknod(parent: Inode, name: String, mode: UInt32, caller: Caller) throws -> Entry {
        throw FilesystemError.readOnly
    }

    func rename(parent: Inode, name: String, newParent: Inode, newName: String, caller: Caller) throws {
        try lock.withLock {
            guard let inode = child(of: parent, named: name) else { throw FilesystemError.notFound }
            guard parent == newParent, try node(inode).permissions & 0o200 != 0 else { throw FilesystemError.notPermitted }
            if let existing = child(of: parent, named: newName) { detach(existing, from: parent) }
            setName(inode, in: parent, to: newName)
        }
    }

    func setattr(inode: Inode, changes: AttributeChanges, caller: Caller) throws -> TimedAttributes {
        try lock.withLock {
            if changes.size != nil || changes.mode != nil { throw FilesystemError.notPermitted }
            return TimedAttributes(attributes: try attributes(inode), timeout: Self.timeout)
        }
    }

    func getxattr(inode: Inode, name: String) throws -> Data {
        try lock.withLock {
            guard let value = try node(inode).xattrs[name] else { throw FilesystemError.noAttribute }
            return value
        }
    }

    func setxattr(inode: Inode, name: String, value: Data, caller: Caller) throws {
        try lock.withLock {
            guard try node(inode).xattrs[name] != nil else { throw FilesystemError.notPermitted }
            nodes[inode]?.xattrs[name] = value
        }
    }

    func listxattr(inode: Inode) throws -> [String] {
        try lock.withLock { try node(inode).xattrs.keys.sorted() }
    }

    func removexattr(inode: Inode, name: String, caller: Caller) throws {
        try lock.withLock {
            guard try node(inode).xattrs[name] != nil else { throw FilesystemError.noAttribute }
            throw FilesystemError.notPermitted
        }
    }
}
