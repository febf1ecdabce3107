import Basics
import Foundation
@testable import PackFS
import PackStore
import TestSupport
import XCTest

/// A fresh database per test with two small packs written straight into the store ("alpha" and
/// "beta", sharing the style and one tile), a `PackFilesystem` over it with a recording pack
/// manager and kernel cache, and helpers that call the model as the kernel would.
class WriteTestCase: PackFSTestCase {
    override class var databaseMode: OfflineDatabase.Mode? { .mount }
    static let origin = "http://example.invalid"
    static let styleURL = origin + "/style.json"
    static let template = origin + "/v/{z}/{x}/{y}.pbf"
    static let style = """
        {"version":8,"sources":{"v":{"type":"vector","tiles":["\(template)"]}},\
        "glyphs":"\(origin)/fonts/{fontstack}/{range}.pbf","sprite":"\(origin)/sprites/s",\
        "layers":[{"id":"l","type":"symbol","source":"v","layout":{"text-field":"x","text-font":["Sans"]}}]}
        """

    var fs: PackFilesystem!
    var controller: RecordingController!
    var kernel: RecordingKernelCache!
    var walker: TreeWalker { TreeWalker(fs: fs) }
    var caller: Caller { walker.caller }
    let packs = InodeCodec.packs

    override func setUpWithError() throws {
        try super.setUpWithError()
        try makePack("alpha", tiles: [(1, 0, 0), (1, 1, 0), (2, 1, 1)], glyphs: true)
        try makePack("beta", tiles: [(1, 0, 0)], glyphs: false)
        controller = RecordingController(database: database)
        kernel = RecordingKernelCache()
        fs = makeFilesystem(controller: controller)
    }

    /// A filesystem over the test database with `controller` and the recording kernel cache.
    func makeFilesystem(controller: (any PackController)?) -> PackFilesystem {
        PackFilesystem(
            database: database, mountpoint: "/mnt", caches: TreeCaches(database: database, kernel: kernel),
            controller: controller, settleDelay: 0.1)
    }

    override func tearDownWithError() throws {
        fs = nil
        try super.tearDownWithError()
    }

    /// A region file's text for the fixture style.
    func regionText(maxzoom: Int = 2, west: Double = 0) -> Data {
        Data(#"{"style": "\#(Self.styleURL)", "bounds": [\#(west), 0, 1, 1], "minzoom": 0, "maxzoom": \#(maxzoom)}"#.utf8)
    }

    @discardableResult
    func makePack(_ name: String, tiles: [(z: Int, x: Int, y: Int)], glyphs: Bool) throws -> Pack {
        let definition = try RegionFile.parse(regionText()).definition
        let pack = try database.createPack(name: name, definition: definition)
        try database.write { batch in
            func link(_ url: String, _ kind: ResourceKind, _ text: String) throws {
                let id = try batch.putResource(url: url, kind: kind, data: .encoding(Data(text.utf8)), headers: CacheHeaders())
                try batch.link(resource: id, to: pack.id)
            }
            try link(Self.styleURL, .style, Self.style)
            try link(Self.origin + "/sprites/s.json", .spriteJSON, "{}")
            try link(Self.origin + "/sprites/s.png", .spriteImage, "png")
            if glyphs {
                for range in ["0-255", "256-511"] { try link(Self.origin + "/fonts/Sans/\(range).pbf", .glyphs, range) }
            }
            for (z, x, y) in tiles {
                let key = TileKey(urlTemplate: Self.template, pixelRatio: 1, z: z, x: x, y: y)
                let id = try batch.putTile(key, data: .encoding(Data("tile \(z)/\(x)/\(y)".utf8)), headers: CacheHeaders())
                try batch.link(tile: id, to: pack.id)
            }
        }
        return pack
    }

    /// The error `body` throws, as a `FilesystemError` (nil when it throws none).
    /// Polls `condition` for up to 5 s (what a settle timer does happens on another thread).
    func waitUntil(_ condition: () throws -> Bool, file: StaticString = #filePath, line: UInt = #line) throws {
        let reached = try eventually(timeout: 5, condition)
        XCTAssertTrue(reached, "timed out", file: file, line: line)
    }

    func error(_ body: () throws -> Void) -> FilesystemError? {
        do {
            try body()
            return nil
        } catch {
            return error as? FilesystemError ?? .io("\(error)")
        }
    }

    func names(_ path: String) throws -> [String] {
        try walker.list(try walker.lookup(path).attributes.inode).map(\.name).filter { $0 != "." && $0 != ".." }
    }

    func text(_ path: String) throws -> String {
        let entry = try walker.lookup(path)
        return String(decoding: try walker.read(entry.attributes.inode, size: entry.attributes.size), as: UTF8.self)
    }

    func exists(_ path: String) -> Bool { (try? walker.lookup(path)) != nil }

    func region(_ name: String) throws -> RegionID { try database.pack(named: name).id }

    /// create + writes + close, as `cp` does (it stops at a failed write); returns the error of
    /// the write that failed.
    func copy(_ content: Data, to name: String, chunk: Int = 7) throws -> FilesystemError? {
        let (_, options) = try fs.create(parent: packs, name: name, mode: 0o644, flags: O_WRONLY | O_CREAT | O_TRUNC, caller: caller)
        let inode = try walker.lookup("packs/" + name).attributes.inode
        defer { fs.release(inode: inode, handle: options.handle) }
        return error { try writeInChunks(content, inode: inode, handle: options.handle, chunk: chunk) }
    }

    /// Writes `content` in pieces of `chunk` bytes, stopping at the first failed write.
    func writeInChunks(_ content: Data, inode: Inode, handle: UInt64, chunk: Int) throws {
        var offset = 0
        while offset < content.count {
            let piece = content[(content.startIndex + offset)..<min(content.endIndex, content.startIndex + offset + chunk)]
            let written = try fs.write(inode: inode, handle: handle, offset: Int64(offset), data: Data(piece))
            XCTAssertEqual(written, piece.count)
            offset += piece.count
        }
    }
}
