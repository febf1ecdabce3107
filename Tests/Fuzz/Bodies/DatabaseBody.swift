import Foundation
import PackFS
import PackStore

/// The database opener: the bytes as a database file, opened as `packfs list` opens it
/// (read-only) and as a mount does (session), then read as both read it.
extension FuzzBodies {
    static func database(_ data: Data) throws {
        let path = scratch.appendingPathComponent("database.db").path
        for suffix in ["", "-wal", "-shm", "-journal"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        guard FileManager.default.createFile(atPath: path, contents: data) else { return }
        if let database = try? OfflineDatabase.open(path: path, mode: .readOnly) {
            list(database)
            try? database.close()
        }
        guard let database = try? OfflineDatabase.open(path: path, mode: .mount) else { return }
        defer { try? database.close() }
        list(database)
        try TreeVisit(filesystem: PackFilesystem(database: database, mountpoint: "/fuzz")).visit()
    }

    /// What `packfs list` and `packfs status` read.
    private static func list(_ database: OfflineDatabase) {
        for pack in (try? database.packs()) ?? [] {
            _ = try? database.progress(of: pack.id)
            _ = pack.metadata
        }
        _ = try? database.databaseCounts()
    }
}

/// A walk of a filesystem as the kernel makes one: each directory listed in pages, each name
/// looked up, each file read. An error is an answer (EIO for a row that does not decode); the
/// invariants are the kernel's: names in a directory are distinct, and a listed name looks up
/// to the inode the listing gave.
public final class TreeVisit {
    let filesystem: any Filesystem
    /// Stops a walk of a large tree (a fuzz input may list thousands of rows).
    var budget = 400
    /// Every error met, as text.
    public private(set) var errors: [String] = []

    public init(filesystem: any Filesystem, budget: Int = 400) {
        self.filesystem = filesystem
        self.budget = budget
    }

    public func visit() throws {
        try visit(directory: .root, path: "")
    }

    private func visit(directory: Inode, path: String) throws {
        guard let entries = attempt(path + "/", { try list(directory) }) else { return }
        var names = Set<[UInt8]>()
        for entry in entries where entry.name != "." && entry.name != ".." {
            try FuzzBodies.check(names.insert(Array(entry.name.utf8)).inserted, "\(path)/ lists \(entry.name) twice")
            budget -= 1
            guard budget > 0 else { return }
            let child = path + "/" + entry.name
            let caller = FuzzBodies.caller
            guard let found = attempt(child, { try filesystem.lookup(parent: directory, name: entry.name, caller: caller) })
            else { continue }
            try FuzzBodies.check(found.attributes.inode == entry.inode, "\(child) looks up to another inode")
            if found.attributes.kind == .directory {
                try visit(directory: found.attributes.inode, path: child)
            } else {
                _ = attempt(child) { try read(found.attributes.inode) }
            }
        }
    }

    private func list(_ directory: Inode) throws -> [DirectoryEntry] {
        var entries: [DirectoryEntry] = []
        var offset: Int64 = 0
        while entries.count < 4096 {
            let page = try filesystem.readdir(inode: directory, offset: offset, limit: 64, caller: FuzzBodies.caller)
            guard let last = page.last else { break }
            entries += page
            offset = last.cookie
        }
        return entries
    }

    private func read(_ inode: Inode) throws -> Int {
        let options = try filesystem.open(inode: inode, flags: O_RDONLY, caller: FuzzBodies.caller)
        defer { filesystem.release(inode: inode, handle: options.handle) }
        return try filesystem.read(inode: inode, handle: options.handle, offset: 0, size: 1 << 16).count
    }

    /// Looks up `path` (below the root), recording what fails; for names a listing may hide.
    public func lookup(_ path: String) {
        var inode = Inode.root
        for name in path.split(separator: "/") {
            let caller = FuzzBodies.caller
            guard let found = attempt(path, { try filesystem.lookup(parent: inode, name: String(name), caller: caller) })
            else { return }
            inode = found.attributes.inode
        }
    }

    private func attempt<T>(_ path: String, _ body: () throws -> T) -> T? {
        do {
            return try body()
        } catch {
            errors.append("\(path): \(error)")
            return nil
        }
    }
}
