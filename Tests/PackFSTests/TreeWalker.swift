import Foundation
import PackFS
import XCTest

/// Walks a `Filesystem` as the kernel would: readdir in pages, lookup of each name, getattr,
/// open and read in chunks, checking that every answer agrees with the others.
struct TreeWalker {
    let fs: Filesystem
    let caller = Caller(uid: getuid(), gid: getgid(), pid: 1)

    struct File {
        var inode: Inode
        var attributes: Attributes
        var content: Data
    }

    func lookup(_ path: String) throws -> Entry {
        var entry = Entry(
            attributes: try fs.getattr(inode: .root, caller: caller).attributes, entryTimeout: 0, attributeTimeout: 0)
        for name in path.split(separator: "/") {
            entry = try fs.lookup(parent: entry.attributes.inode, name: String(name), caller: caller)
        }
        return entry
    }

    /// Every entry of a directory, `limit` at a time, each cookie continuing the listing.
    func list(_ inode: Inode, limit: Int = 64) throws -> [DirectoryEntry] {
        var entries: [DirectoryEntry] = []
        var offset: Int64 = 0
        while true {
            let page = try fs.readdir(inode: inode, offset: offset, limit: limit, caller: caller)
            XCTAssertLessThanOrEqual(page.count, limit)
            guard let last = page.last else { return entries }
            entries += page
            offset = last.cookie
        }
    }

    func read(_ inode: Inode, size: UInt64) throws -> Data {
        let options = try fs.open(inode: inode, flags: O_RDONLY, caller: caller)
        defer { fs.release(inode: inode, handle: options.handle) }
        var content = Data()
        while true {
            let chunk = try fs.read(inode: inode, handle: options.handle, offset: Int64(content.count), size: 4096)
            content += chunk
            if chunk.count < 4096 { break }
        }
        XCTAssertTrue(options.directIO || content.count == Int(size), "size \(size) but \(content.count) bytes read")
        return content
    }

    /// Every file under `path`, by path relative to the root.
    func files(under path: String = "") throws -> [String: File] {
        var files: [String: File] = [:]
        let directory = try lookup(path).attributes
        XCTAssertEqual(directory.kind, .directory, path)
        for entry in try list(directory.inode) where entry.name != "." && entry.name != ".." {
            let child = path.isEmpty ? entry.name : path + "/" + entry.name
            let found = try fs.lookup(parent: directory.inode, name: entry.name, caller: caller).attributes
            XCTAssertEqual(found.inode, entry.inode, child)
            XCTAssertEqual(found.kind, entry.kind, child)
            XCTAssertEqual(try fs.getattr(inode: entry.inode, caller: caller).attributes.size, found.size, child)
            if found.kind == .directory {
                files.merge(try self.files(under: child)) { a, _ in a }
            } else {
                files[child] = File(inode: found.inode, attributes: found, content: try read(found.inode, size: found.size))
            }
        }
        return files
    }
}

extension TreeWalker {
    /// The content of the file at `path`.
    func read(_ path: String) throws -> Data {
        let file = try lookup(path).attributes
        return try read(file.inode, size: file.size)
    }
}
