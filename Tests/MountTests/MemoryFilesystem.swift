import Foundation
import PackFS

/// A small in-memory `Filesystem` with known content, for mounting through the kernel:
///
/// ```
/// /hello.txt          "Hello, PackFS!\n", 0444
/// /large.bin          1 MiB, byte i = i * 7 mod 251, 0444
/// /notes.txt          writable (0644), xattr user.test.state = "inactive"
/// /docs/readme.md     "# Readme\n"
/// /empty/             removable
/// /many/              20,000 files "entry-<i>", listed in i order (cookie i + 3), not name order
/// ```
/// Read-only files refuse writes with EROFS, truncate is EPERM, mkdir EROFS, and a created file
/// whose name ends in ".bad" fails its writes with EINVAL (like a rejected region file).
class MemoryFilesystem: Filesystem, @unchecked Sendable {  // `nodes` and the counters are guarded by `lock`
    struct Node {
        var name: String
        var parent: Inode
        var kind: Attributes.Kind
        var permissions: UInt16
        var content = Data()
        var children: [Inode] = []
        var xattrs: [String: Data] = [:]
    }

    static let hello = Data("Hello, PackFS!\n".utf8)
    static let large = Data((0..<(1 << 20)).map { UInt8($0 * 7 % 251) })
    static let manyCount = 20_000
    static let timeout = 60.0

    /// A directory's child by name, so that a lookup (one per entry of a READDIRPLUS page) is
    /// not a walk of 20,000 children.
    struct ChildName: Hashable {
        var parent: Inode
        var name: String
    }

    let lock = NSLock()
    var nodes: [Inode: Node] = [:]
    var names: [ChildName: Inode] = [:]
    private var nextInode: UInt64 = 1_000_000

    init() {
        nodes[.root] = Node(name: "", parent: .root, kind: .directory, permissions: 0o755)
        let docs = add("docs", in: .root, kind: .directory)
        add("readme.md", in: docs, content: Data("# Readme\n".utf8))
        add("empty", in: .root, kind: .directory)
        add("hello.txt", in: .root, content: Self.hello)
        add("large.bin", in: .root, content: Self.large)
        let notes = add("notes.txt", in: .root, permissions: 0o644, content: Data("first\n".utf8))
        nodes[notes]?.xattrs["user.test.state"] = Data("inactive".utf8)
        let many = add("many", in: .root, kind: .directory)
        for index in 0..<Self.manyCount { add("entry-\(index)", in: many, content: Data("\(index)\n".utf8)) }
    }

    @discardableResult
    func add(_ name: String, in parent: Inode, kind: Attributes.Kind = .regularFile, permissions: UInt16? = nil,
             content: Data = Data()) -> Inode {
        lock.withLock { insert(name, in: parent, kind: kind, permissions: permissions, content: content) }
    }

    /// Adds a node; the caller holds the lock.
    func insert(_ name: String, in parent: Inode, kind: Attributes.Kind, permissions: UInt16?, content: Data) -> Inode {
        let inode = Inode(rawValue: nextInode)
        nextInode += 1
        nodes[inode] = Node(name: name, parent: parent, kind: kind,
                            permissions: permissions ?? (kind == .directory ? 0o555 : 0o444), content: content)
        nodes[parent]?.children.append(inode)
        names[ChildName(parent: parent, name: name)] = inode
        return inode
    }

    /// Takes `inode` out of `parent`; the caller holds the lock.
    func detach(_ inode: Inode, from parent: Inode) {
        if let name = nodes[inode]?.name { names[ChildName(parent: parent, name: name)] = nil }
        nodes[parent]?.children.removeAll { $0 == inode }
        nodes[inode] = nil
    }

    /// Gives `inode` in `parent` a new name; the caller holds the lock.
    func setName(_ inode: Inode, in parent: Inode, to name: String) {
        guard let old = nodes[inode]?.name else { return }
        names[ChildName(parent: parent, name: old)] = nil
        names[ChildName(parent: parent, name: name)] = inode
        nodes[inode]?.name = name
    }

    /// Changes content or a name behind the kernel's back (for the invalidation tests).
    func replaceContent(of inode: Inode, with content: Data) { lock.withLock { nodes[inode]?.content = content } }
    func renameSilently(_ inode: Inode, to name: String) {
        lock.withLock {
            guard let parent = nodes[inode]?.parent else { return }
            setName(inode, in: parent, to: name)
        }
    }

    func inode(at path: String) -> Inode? {
        lock.withLock {
            var current = Inode.root
            for part in path.split(separator: "/") {
                guard let next = child(of: current, named: String(part)) else { return nil }
                current = next
            }
            return current
        }
    }

    /// The caller holds the lock.
    func child(of parent: Inode, named name: String) -> Inode? {
        names[ChildName(parent: parent, name: name)]
    }

    /// The caller holds the lock.
    func node(_ inode: Inode) throws -> Node {
        guard let node = nodes[inode] else { throw FilesystemError.stale }
        return node
    }

    /// The caller holds the lock.
    func attributes(_ inode: Inode) throws -> Attributes {
        let node = try node(inode)
        return Attributes(inode: inode, kind: node.kind, permissions: node.permissions, size: UInt64(node.content.count),
                          links: node.kind == .directory ? 2 : 1, modified: 1_700_000_000, uid: 0, gid: 0)
    }

    // MARK: Filesystem, reading

    func lookup(parent: Inode, name: String, caller: Caller) throws -> Entry {
        try lock.withLock {
            guard let child = child(of: parent, named: name) else { throw FilesystemError.notFound }
            return Entry(attributes: try attributes(child), entryTimeout: Self.timeout, attributeTimeout: Self.timeout)
        }
    }

    func forget(inode: Inode, lookups: UInt64) {}

    func getattr(inode: Inode, caller: Caller) throws -> TimedAttributes {
        try lock.withLock { TimedAttributes(attributes: try attributes(inode), timeout: Self.timeout) }
    }

    func readdir(inode: Inode, offset: Int64, limit: Int, caller: Caller) throws -> [DirectoryEntry] {
        try lock.withLock {
            let directory = try node(inode)
            guard directory.kind == .directory else { throw FilesystemError.notDirectory }
            // Cookies: 1 for ".", 2 for "..", index + 3 for the children; a page starts after `offset`.
            var page = [DirectoryEntry(name: ".", inode: inode, kind: .directory, cookie: 1),
                        DirectoryEntry(name: "..", inode: directory.parent, kind: .directory, cookie: 2)]
                .filter { $0.cookie > offset }
            var index = max(Int(offset) - 2, 0)
            while page.count < limit, index < directory.children.count {
                let child = directory.children[index]
                if let node = nodes[child] {
                    page.append(DirectoryEntry(name: node.name, inode: child, kind: node.kind, cookie: Int64(index) + 3))
                }
                index += 1
            }
            return page
        }
    }

    func open(inode: Inode, flags: Int32, caller: Caller) throws -> OpenOptions {
        try lock.withLock {
            let node = try node(inode)
            if flags & O_ACCMODE != O_RDONLY && node.permissions & 0o200 == 0 { throw FilesystemError.readOnly }
            if flags & O_TRUNC != 0 { nodes[inode]?.content = Data() }
            return OpenOptions(keepCache: true, handle: inode.rawValue)
        }
    }

    func read(inode: Inode, handle: UInt64, offset: Int64, size: Int) throws -> Data {
        try lock.withLock {
            let content = try node(inode).content
            guard offset < content.count else { return Data() }
            let start = content.startIndex + Int(offset)
            return Data(content[start..<min(content.endIndex, start + size)])
        }
    }

    func release(inode: Inode, handle: UInt64) {}

    func statfs() throws -> FilesystemStatistics {
        FilesystemStatistics(blockSize: 4096, blocks: 1000, freeBlocks: 0, files: UInt64(Self.manyCount + 10))
    }
}
