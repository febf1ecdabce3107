import Basics
import Downloader
import Foundation
@testable import PackFS
import PackStore
import SQLiteDB
import TestSupport
import Synchronization
import XCTest

/// The whole read side over a real download of the fixture pack, walked as the kernel would.
final class TreeWalkTests: PackFSTestCase {
    /// A directory holding the downloaded pack (`origin.db`) and the server it came from.
    static let fixture = ClassFixture<(origin: String, server: TestServer)>()

    /// A mountpoint with a space: URLs in style.json must be percent-encoded.
    let mountpoint = "/mnt/pack fs"
    var fs: PackFilesystem!
    var walker: TreeWalker { TreeWalker(fs: fs) }

    override class var sharesServer: Bool { true }

    override class func setUp() {
        super.setUp()
        fixture.setUp {
            let origin = try classDirectory().path("origin.db")
            let server = try TestServer.nginx()
            do {
                try downloadHelsinki(into: origin, from: server)
                return (origin, server)
            } catch {
                server.stop()
                throw error
            }
        }
    }

    private static func downloadHelsinki(into path: String, from server: TestServer) throws {
        let database = try OfflineDatabase.open(path: path, mode: .mount)
        defer { try? database.close() }
        let definition = RegionDefinition(
            styleURL: server.baseURL + "/styles/bright.json",
            area: .bounds(Bounds(west: 24.93, south: 60.16, east: 24.96, north: 60.18)), minZoom: 0, maxZoom: 14)
        let pack = try database.createPack(
            name: "helsinki", definition: definition, metadata: .object(["trip": .string("weekend")]))
        let status = PackDownload(database: database, region: pack.id, definition: definition).run()
        if status.state != .complete { throw FilesystemError.io("download: \(status.error ?? "?")") }
    }

    override class func tearDown() {
        fixture.tearDown { $0.server.stop() }
        super.tearDown()
    }

    override func setUpWithError() throws {
        try super.setUpWithError()
        let (origin, server) = try Self.fixture.value()
        self.server = server
        let path = temp.path("copy.db")
        try FileManager.default.copyItem(atPath: origin, toPath: path)
        database = try OfflineDatabase.open(path: path, mode: .mount)
        fs = PackFilesystem(database: database, mountpoint: mountpoint)
    }

    override func tearDownWithError() throws {
        fs = nil
        try super.tearDownWithError()
    }

    /// The origin's bytes for `path`, as a renderer reading `file://` needs them (inflated).
    func origin(_ path: String) throws -> Data {
        let data = try server.expectedContent(path)
        return data.starts(with: [0x1F, 0x8B]) ? try Zlib.decompress(data) : data
    }

    func testEveryFileHasTheOriginsBytesAndAnExactSize() throws {
        let files = try walker.files()
        let pack = "packs/helsinki/"
        let originOf: [(prefix: String, origin: String)] = [
            (pack + "sources/openmaptiles/", "tiles/helsinki/"), (pack + "sources/land/", "tiles/land/"),
            (pack + "sources/relief/", "tiles/geography-class-png/"), (pack + "glyphs/", "fonts/"),
        ]
        var checked = 0
        for (path, file) in files {
            XCTAssertEqual(file.attributes.size, UInt64(file.content.count), path)
            XCTAssertEqual(file.attributes.permissions, path.hasSuffix(".region") ? 0o600 : 0o444, path)
            guard let match = originOf.first(where: { path.hasPrefix($0.prefix) }) else { continue }
            let rest = String(path.dropFirst(match.prefix.count))
            if rest == "tiles.json" && !path.contains("/openmaptiles/") {
                // Inline sources have no TileJSON at the origin: the mount writes one.
                let template = JSONValue.parse(file.content)?["tiles"]?.array?.first?.string ?? ""
                XCTAssertTrue(template.hasPrefix("file:///mnt/pack%20fs/" + match.prefix), template)
                continue
            }
            let originPath = rest == "tiles.json" ? "tiles/helsinki.json" : match.origin + rest
            XCTAssertEqual(file.content, try origin(originPath), path)
            checked += 1
        }
        let primary = files.keys.filter { $0.range(of: #"^packs/helsinki/\d+/\d+/\d+\.pbf$"#, options: .regularExpression) != nil }
        XCTAssertEqual(primary.count, 19)
        for path in primary {
            let origin = try origin("tiles/helsinki/" + path.dropFirst(pack.count))
            XCTAssertEqual(files[path]?.content, origin, path)
        }
        XCTAssertEqual(files.keys.filter { $0.hasPrefix(pack + "glyphs/") }.count, 3 * 97)
        XCTAssertEqual(Set(files.keys.filter { $0.hasPrefix(pack + "glyphs/") }.map { $0.split(separator: "/")[3] }).count, 3)
        let relief = files.keys.filter { $0.hasPrefix(pack + "sources/relief/") && $0 != pack + "sources/relief/tiles.json" }
        XCTAssertFalse(relief.isEmpty)
        XCTAssertTrue(relief.allSatisfy { $0.hasSuffix(".png") }, "\(relief)")
        for (file, origin) in [("default.json", "bright.json"), ("default.png", "bright.png"),
                               ("default@2x.json", "bright@2x.json"), ("default@2x.png", "bright@2x.png")] {
            XCTAssertEqual(files[pack + "sprites/" + file]?.content, try self.origin("sprites/" + origin), file)
        }
        XCTAssertEqual(files.keys.filter { $0.hasPrefix(pack + "sprites/") }.count, 4)
        XCTAssertEqual(try walker.list(try walker.lookup(pack + "sources").attributes.inode).map(\.name),
                       [".", "..", "openmaptiles", "land", "relief"])
        XCTAssertGreaterThan(checked, 300)
    }

    /// `--web-base`: `web-style.json` beside `style.json`, the same style with every URL absolute
    /// under the base (the pack's name encoded); without a base there is no such file.
    func testAWebBaseAddsAWebStyleWithAbsoluteURLs() throws {
        XCTAssertFalse(try walker.files(under: "packs/helsinki").keys.contains("packs/helsinki/web-style.json"))
        fs = PackFilesystem(database: database, mountpoint: mountpoint, webBase: "https://maps.example/packfs/")
        let files = try walker.files(under: "packs/helsinki")
        let web = try XCTUnwrap(JSONValue.parse(try XCTUnwrap(files["packs/helsinki/web-style.json"]).content))
        let local = try XCTUnwrap(JSONValue.parse(try XCTUnwrap(files["packs/helsinki/style.json"]).content))
        let base = "https://maps.example/packfs/packs/helsinki/"
        XCTAssertEqual(web["glyphs"], .string(base + "glyphs/{fontstack}/{range}.pbf"))
        XCTAssertEqual(web["sprite"], .string(base + "sprites/default"))
        for (id, source) in try XCTUnwrap(web["sources"]?.object) {
            let template = try XCTUnwrap(source["tiles"]?.array?.first?.string, id)
            XCTAssertEqual(template, base + "sources/\(id)/{z}/{x}/{y}." + (id == "relief" ? "png" : "pbf"))
        }
        XCTAssertEqual(web["layers"], local["layers"], "only the URLs differ")
    }

    func testStyleURLsPointIntoTheMountAndResolveToFiles() throws {
        let files = try walker.files(under: "packs/helsinki")
        let style = try XCTUnwrap(JSONValue.parse(try XCTUnwrap(files["packs/helsinki/style.json"]).content))
        let base = "file:///mnt/pack%20fs/packs/helsinki/"
        func path(_ url: String) throws -> String {
            XCTAssertTrue(url.hasPrefix(base), url)
            return "packs/helsinki/" + (String(url.dropFirst(base.count)).removingPercentEncoding ?? "")
        }
        let sources = try XCTUnwrap(style["sources"]?.object)
        XCTAssertEqual(Set(sources.keys), ["openmaptiles", "land", "relief"])
        for (id, source) in sources {
            XCTAssertNil(source["url"], id)
            let template = try XCTUnwrap(source["tiles"]?.array?.first?.string, id)
            let tiles = files.keys.filter { $0.hasPrefix("packs/helsinki/sources/\(id)/") && !$0.hasSuffix("tiles.json") }
            XCTAssertFalse(tiles.isEmpty, id)
            for tile in tiles {
                let zxy = tile.split(separator: "/").suffix(3).map(String.init)
                let y = String(zxy[2].split(separator: ".")[0])
                let url = template.replacingOccurrences(of: "{z}", with: zxy[0])
                    .replacingOccurrences(of: "{x}", with: zxy[1]).replacingOccurrences(of: "{y}", with: y)
                XCTAssertEqual(try path(url), tile)
            }
        }
        XCTAssertEqual(sources["openmaptiles"]?["maxzoom"], .number(14))
        XCTAssertNotNil(sources["openmaptiles"]?["bounds"])
        let glyphs = try XCTUnwrap(style["glyphs"]?.string)
        let glyph = glyphs.replacingOccurrences(of: "{fontstack}", with: "Noto%20Sans%20Regular")
            .replacingOccurrences(of: "{range}", with: "0-255")
        XCTAssertNotNil(files[try path(glyph)], glyph)
        let sprite = try XCTUnwrap(style["sprite"]?.string)
        for suffix in [".json", ".png", "@2x.json", "@2x.png"] {
            XCTAssertNotNil(files[try path(sprite + suffix)], sprite + suffix)
        }
    }

    func testLiveFilesAndRegionFile() throws {
        let pack = try database.pack(named: "helsinki")
        let progress = try walker.lookup("packs/helsinki/progress.json")
        XCTAssertEqual(progress.entryTimeout, 0)
        XCTAssertEqual(JSONValue.parse(try walker.read(progress.attributes.inode, size: progress.attributes.size)),
                       try database.progress(of: pack.id).json)
        let region = try walker.lookup("packs/helsinki.region")
        XCTAssertEqual(region.attributes.permissions, 0o600)
        XCTAssertEqual(region.attributes.uid, getuid())
        let text = try walker.read(region.attributes.inode, size: region.attributes.size)
        XCTAssertEqual(try RegionFile.parse(text), RegionFile(definition: pack.definition!, metadata: pack.metadata))
        let status = try walker.lookup("status.json")
        let figures = try XCTUnwrap(JSONValue.parse(try walker.read(status.attributes.inode, size: status.attributes.size)))
        XCTAssertEqual(figures["packs"], .number(1))
        XCTAssertEqual(figures["tiles"], .number(Double(try database.databaseCounts().tiles)))
        XCTAssertEqual(try walker.lookup("packs").attributes.permissions, 0o755)
        let tile = try walker.lookup("packs/helsinki/14/9326/4741.pbf")
        XCTAssertEqual(tile.entryTimeout, 3600)
        XCTAssertEqual(try fs.open(inode: tile.attributes.inode, flags: O_RDONLY, caller: walker.caller).keepCache, true)
        XCTAssertEqual(try fs.open(inode: progress.attributes.inode, flags: O_RDONLY, caller: walker.caller).directIO, true)
    }

    /// A stat of a tile the kernel forgot (`du` after reclaim: a GETATTR of a known inode) takes its
    /// recorded size and decodes nothing: with bytes that no longer inflate under a size recorded for
    /// them, the stat answers and only the read fails.
    func testAStatOfATileTakesItsRecordedSizeWithoutDecodingIt() throws {
        let tile = try walker.lookup("packs/helsinki/14/9326/4741.pbf").attributes
        guard case .tile(_, let id, _) = try XCTUnwrap(InodeCodec.decode(tile.inode)) else { return XCTFail("not a tile") }
        let path = temp.path("copy.db")
        try DatabaseQueue(path: path).write { db in
            // Changing the bytes drops their recorded size (a trigger): it is recorded again.
            try db.execute(sql: "UPDATE tiles SET data = x'78DA00', compressed = 1 WHERE id = ?", arguments: [id.rawValue])
            try db.execute(sql: "INSERT INTO packfs_tile_sizes (tile_id, size) VALUES (?, ?)", arguments: [id.rawValue, Int(tile.size)])
        }
        // Another connection's change: a mount, the file's only writer, reads it after a write of its own.
        try database.write { _ in }
        let fresh = PackFilesystem(database: database, mountpoint: mountpoint)
        XCTAssertEqual(try fresh.getattr(inode: tile.inode, caller: walker.caller).attributes.size, tile.size)
        XCTAssertThrowsError(try fresh.read(inode: tile.inode, handle: 0, offset: 0, size: Int(tile.size)))
        // Without a recorded size the stat decodes, and says what is wrong.
        try DatabaseQueue(path: path).write { try $0.execute(sql: "DELETE FROM packfs_tile_sizes WHERE tile_id = ?", arguments: [id.rawValue]) }
        try database.write { _ in }
        let bare = PackFilesystem(database: database, mountpoint: mountpoint)
        XCTAssertThrowsError(try bare.getattr(inode: tile.inode, caller: walker.caller))
    }

    /// A process that listed a column and then looks its tiles up (`du`'s and `ls -l`'s first column) gets each
    /// tile's recorded size without its content being read; a process that listed nothing (a renderer) gets the
    /// content kept for the read that follows; a tile with no recorded size is read either way.
    func testALookupByAProcessThatListedTheColumnTakesTheRecordedSize() throws {
        let column = try walker.lookup("packs/helsinki/14/9326").attributes.inode
        let lister = Caller(uid: getuid(), gid: getgid(), pid: 4545)
        let names = try fs.readdir(inode: column, offset: 0, limit: 64, caller: lister).map(\.name).filter { $0.hasSuffix(".pbf") }
        XCTAssertGreaterThan(names.count, 1)
        for name in names.prefix(2) {
            let quick = fs.quickLookup(parent: column, name: name, caller: lister)
            let full = try fs.lookup(parent: column, name: name, caller: lister)
            guard case .entry(let entry)? = quick else { return XCTFail("no quick entry: \(String(describing: quick))") }
            XCTAssertEqual(entry, full, name)
            XCTAssertNil(fs.cache.content(entry.attributes.inode), "\(name): its content not read")
            let content = try fs.read(inode: entry.attributes.inode, handle: 0, offset: 0, size: 1 << 20)
            XCTAssertEqual(UInt64(content.count), entry.attributes.size, name)
            XCTAssertEqual(content, try origin("tiles/helsinki/14/9326/" + name))
        }
        let reader = Caller(uid: getuid(), gid: getgid(), pid: 4646)
        let read = try fs.lookup(parent: column, name: names[0], caller: reader)
        XCTAssertNotNil(fs.cache.content(read.attributes.inode), "a renderer's lookup keeps the content")
        // Without a recorded size, the lister's lookup reads the tile for it.
        guard case .tile(_, let id, _) = try XCTUnwrap(InodeCodec.decode(read.attributes.inode)) else { return XCTFail("not a tile") }
        try DatabaseQueue(path: temp.path("copy.db")).write {
            try $0.execute(sql: "DELETE FROM packfs_tile_sizes WHERE tile_id = ?", arguments: [id.rawValue])
        }
        try database.write { _ in }
        let fresh = PackFilesystem(database: database, mountpoint: mountpoint)
        _ = try fresh.readdir(inode: column, offset: 0, limit: 64, caller: lister)
        // Its inode and size (a fresh filesystem's times are its own mount's second).
        let unsized = try fresh.lookup(parent: column, name: names[0], caller: lister).attributes
        XCTAssertEqual([unsized.inode.rawValue, unsized.size], [read.attributes.inode.rawValue, read.attributes.size])
        XCTAssertNotNil(fresh.cache.content(read.attributes.inode), "no size recorded: the tile was read")
    }

    /// A walker's next page of a column is read on the listing's own thread once a full page is served, and the
    /// next request takes it (the same entries a listing reads afresh); after a write it is read afresh.
    func testAWalkersNextPageIsReadAheadUnlessTheStoreWrites() throws {
        let column = try walker.lookup("packs/helsinki/14/9326").attributes.inode
        let names = try fs.readdir(inode: column, offset: 0, limit: 64, caller: walker.caller).map(\.name)
            .filter { $0.hasSuffix(".pbf") }
        XCTAssertGreaterThanOrEqual(names.count, 2)
        let du = Caller(uid: getuid(), gid: getgid(), pid: 4848)
        _ = try fs.lookup(parent: column, name: names[0], caller: du)  // from now on it stats what it lists
        defer { fs.stopReadingAhead() }
        func page(after cookie: Int64) throws -> (name: String, size: UInt64?, cookie: Int64) {
            var entries: [(name: String, size: UInt64?, cookie: Int64)] = []
            try fs.readdirPlus(inode: column, offset: cookie, limit: 1, caller: du) { name, _, _, entry, cookie in
                entries.append((String(cString: name), entry?.attributes.size, cookie))
                return true
            }
            XCTAssertEqual(entries.count, 1)
            return try XCTUnwrap(entries.first)
        }
        func waitForPagesReadAhead(_ count: Int) {
            let deadline = Date(timeIntervalSinceNow: 30)
            while fs.listingAhead.kept < count, Date() < deadline { usleep(1000) }
            XCTAssertEqual(fs.listingAhead.kept, count)
        }
        let first = try page(after: 2)
        XCTAssertEqual(first.name, names[0])
        waitForPagesReadAhead(1)
        try database.write { _ in }
        let afresh = try page(after: first.cookie)
        XCTAssertEqual(fs.listingAhead.taken.load(ordering: .relaxed), 0, "read afresh after a write")
        XCTAssertEqual(afresh.name, names[1])
        XCTAssertEqual(fs.listingAhead.kept, 0, "what was read before the write went")
        XCTAssertEqual(try page(after: 2).name, names[0])
        waitForPagesReadAhead(2)  // the second page, and the third after the full page read afresh
        let second = try page(after: first.cookie)
        XCTAssertEqual(fs.listingAhead.taken.load(ordering: .relaxed), 1, "the page was read ahead")
        XCTAssertEqual(second.name, names[1])
        XCTAssertEqual(second.size, try fs.lookup(parent: column, name: names[1], caller: du).attributes.size)
    }

    /// A tile directory's listing is the kernel's to keep from one open to the next until the store writes
    /// (any write: a column's rows could be among those it changed); a listing read for a process that
    /// reads names only is read again for one that stats them (with attributes); other directories are
    /// read afresh at every open.
    func testTileListingsAreKeptByTheKernelUntilTheStoreWrites() throws {
        let column = try walker.lookup("packs/helsinki/14/9326").attributes.inode
        let zoom = try walker.lookup("packs/helsinki/14").attributes.inode
        let reader = Caller(uid: getuid(), gid: getgid(), pid: 4242)
        for inode in [column, zoom] {
            XCTAssertEqual(try fs.opendir(inode: inode, caller: reader), OpenOptions(keepCache: false, cacheListing: true))
            XCTAssertEqual(try fs.opendir(inode: inode, caller: reader), OpenOptions(keepCache: true, cacheListing: true))
        }
        try database.write { _ in }  // any write: the count does not say what changed
        XCTAssertEqual(try fs.opendir(inode: column, caller: reader).keepCache, false, "read again after a write")
        XCTAssertEqual(try fs.opendir(inode: zoom, caller: reader).keepCache, false, "read again after a write")
        XCTAssertEqual(try fs.opendir(inode: column, caller: reader).keepCache, true)
        // A process that looked a tile up stats what it lists: the names alone would cost it a lookup each.
        let statWalker = Caller(uid: getuid(), gid: getgid(), pid: 4343)
        _ = try fs.lookup(parent: column, name: "4741.pbf", caller: statWalker)
        XCTAssertEqual(try fs.opendir(inode: column, caller: statWalker).keepCache, false)
        XCTAssertEqual(try fs.opendir(inode: column, caller: statWalker).keepCache, true)
        XCTAssertEqual(try fs.opendir(inode: column, caller: reader).keepCache, true, "a listing with attributes serves both")
        for path in ["", "packs", "packs/helsinki", "packs/helsinki/glyphs"] {
            let inode = try walker.lookup(path).attributes.inode
            _ = try fs.opendir(inode: inode, caller: reader)
            XCTAssertEqual(try fs.opendir(inode: inode, caller: reader), OpenOptions(keepCache: false), path)
        }
    }

    /// Every time is at most the mount's own second, so none is in the future even at the mount's
    /// first instant (live files' content-hash nanoseconds once were, and `ls -l` showed a year).
    func testNoTimeIsLaterThanTheMount() throws {
        for path in ["", "status.json", "packs", "packs/helsinki.region", "packs/helsinki",
                     "packs/helsinki/progress.json", "packs/helsinki/style.json", "packs/helsinki/14/9326/4741.pbf"] {
            let attributes = try walker.lookup(path).attributes
            let time = Double(attributes.modified) + Double(attributes.modifiedNanoseconds) / 1e9
            XCTAssertLessThanOrEqual(time, Double(fs.mountTime), path)
        }
    }

    /// statfs: the database's blocks used, the free space of the disk it is on free.
    func testStatfsShowsTheDatabaseAndTheRoomItHas() throws {
        let figures = try fs.statfs()
        var disk = statvfs()
        XCTAssertEqual(statvfs(database.path, &disk), 0)
        let diskFree = Double(disk.f_bavail) * Double(disk.f_frsize)
        XCTAssertGreaterThan(figures.freeBlocks, 0)
        XCTAssertEqual(Double(figures.freeBlocks) * 4096, diskFree, accuracy: 64 * 1024 * 1024)
        let used = figures.blocks - figures.freeBlocks
        XCTAssertEqual(Int64(used) * 4096, (try database.databaseCounts().bytes + 4095) / 4096 * 4096)
    }

    func testPagingReturnsEveryEntryOnce() throws {
        for path in ["", "packs", "packs/helsinki", "packs/helsinki/glyphs", "packs/helsinki/glyphs/Noto Sans Bold",
                     "packs/helsinki/sprites", "packs/helsinki/sources/openmaptiles/14", "packs/helsinki/14/9326"] {
            let inode = try walker.lookup(path).attributes.inode
            let all = try walker.list(inode, limit: 10_000)
            XCTAssertEqual(Set(all.map(\.name)).count, all.count, path)
            for limit in [1, 2, 3] {
                XCTAssertEqual(try walker.list(inode, limit: limit), all, "\(path) by \(limit)")
            }
        }
    }

    func testAbsentNamesAndRefusedChanges() throws {
        for path in ["nope", "packs/nope", "packs/nope.region", "packs/helsinki.error", "packs/helsinki/nope",
                     "packs/helsinki/15", "packs/helsinki/14/1", "packs/helsinki/14/9326/1.pbf",
                     "packs/helsinki/14/9326/4741.png", "packs/helsinki/14/9326/04741.pbf", "packs/helsinki/sources/x",
                     "packs/helsinki/glyphs/Nope", "packs/helsinki/glyphs/Noto Sans Bold/1-2.pbf",
                     "packs/helsinki/sprites/other.json"] {
            XCTAssertThrowsError(try walker.lookup(path), path) { XCTAssertEqual($0 as? FilesystemError, .notFound, path) }
        }
        let pack = try walker.lookup("packs/helsinki").attributes.inode
        XCTAssertThrowsError(try fs.create(parent: pack, name: "x.region", mode: 0o644, flags: O_WRONLY, caller: walker.caller)) {
            XCTAssertEqual(($0 as? FilesystemError)?.errno, EROFS)
        }
        XCTAssertThrowsError(try fs.mkdir(parent: .root, name: "x", mode: 0o755, caller: walker.caller)) {
            XCTAssertEqual(($0 as? FilesystemError)?.errno, EPERM)
        }
        let tile = try walker.lookup("packs/helsinki/14/9326/4741.pbf").attributes.inode
        XCTAssertThrowsError(try fs.open(inode: tile, flags: O_WRONLY, caller: walker.caller)) {
            XCTAssertEqual(($0 as? FilesystemError)?.errno, EROFS)
        }
    }

    func testRejectionHookShowsAnErrorFile() throws {
        fs.recordRegionFileVerdict(name: "bad", reason: "bounds: south latitude is above north latitude")
        let entry = try walker.lookup("packs/bad.error")
        XCTAssertEqual(String(decoding: try walker.read(entry.attributes.inode, size: entry.attributes.size), as: UTF8.self),
                       "bounds: south latitude is above north latitude\n")
        XCTAssertTrue(try walker.list(try walker.lookup("packs").attributes.inode).map(\.name).contains("bad.error"))
        fs.recordRegionFileVerdict(name: "bad", reason: nil)
        XCTAssertThrowsError(try walker.lookup("packs/bad.error"))
        XCTAssertThrowsError(try fs.getattr(inode: entry.attributes.inode, caller: walker.caller)) {
            XCTAssertEqual($0 as? FilesystemError, .stale)
        }
    }

    func testARemovedPacksInodesAreStale() throws {
        let paths = ["packs/helsinki", "packs/helsinki.region", "packs/helsinki/style.json", "packs/helsinki/14",
                     "packs/helsinki/14/9326", "packs/helsinki/14/9326/4741.pbf", "packs/helsinki/glyphs/Noto Sans Bold",
                     "packs/helsinki/glyphs/Noto Sans Bold/0-255.pbf", "packs/helsinki/sources/relief/tiles.json"]
        var inodes: [Inode] = []
        for path in paths {
            let entry = try walker.lookup(path)
            if entry.attributes.kind == .regularFile { _ = try walker.read(entry.attributes.inode, size: entry.attributes.size) }
            inodes.append(entry.attributes.inode)
        }
        try database.removePack(try database.pack(named: "helsinki").id)
        for (path, inode) in zip(paths, inodes) {
            XCTAssertThrowsError(try fs.getattr(inode: inode, caller: walker.caller), path) {
                XCTAssertEqual($0 as? FilesystemError, .stale, path)
            }
        }
        XCTAssertEqual(try walker.list(try walker.lookup("packs").attributes.inode).map(\.name), [".", ".."])
    }

    /// A tile lookup keeps what it read of the pack (`PackView`) for the next one, until the store
    /// moves on: a rename, a state written, a pack forgotten; after each, lookups see the change.
    func testAPackViewIsKeptUntilThePackOrItsStateChanges() throws {
        let tile = "packs/helsinki/14/9326/4741.pbf"
        let region = try database.pack(named: "helsinki").id
        func view() -> PackView? { database.cacheGeneration.flatMap { fs.cache.view(of: region, generation: $0) } }
        XCTAssertNil(view())
        let first = try walker.lookup(tile)
        let kept = try XCTUnwrap(view(), "the cold lookup kept its view")
        XCTAssertEqual(kept.pack.name, "helsinki")
        XCTAssertEqual(kept.state, .complete)
        XCTAssertNotNil(kept.usableLayout, "a complete pack's layout is kept for good")
        XCTAssertEqual(try walker.lookup(tile).attributes, first.attributes)

        try database.renamePack(region, to: "espoo")
        XCTAssertNil(view(), "a rename moves the store's count on")
        XCTAssertThrowsError(try walker.lookup(tile))
        XCTAssertEqual(try walker.lookup("packs/espoo/14/9326/4741.pbf").attributes.size, first.attributes.size)
        XCTAssertEqual(try XCTUnwrap(view()).pack.name, "espoo")

        try database.setStatus(PackStatus(state: .error, error: "x"), of: region)
        XCTAssertNil(view(), "a state written moves it on")
        XCTAssertEqual(try walker.lookup("packs/espoo/14").entryTimeout, 1, "a pack not complete: its directories may change")
        XCTAssertEqual(try XCTUnwrap(view()).state, .error)

        fs.caches.forgetPack(region)
        XCTAssertNil(view(), "forgetting the pack drops it")
    }

    /// Issue 30: a cold tile LOOKUP (a tile never looked up, in a pack an earlier request has
    /// read) takes few of PackStore's locks (the content cache's), each at most a few times; it
    /// took six locks, eight times, before. SQLiteDB's pool (one visit per request) is not tallied.
    func testAColdTileLookupTakesTwoLocks() throws {
        let column = try walker.lookup("packs/helsinki/14/9326").attributes.inode
        let names = try walker.list(column).map(\.name).filter { $0.hasSuffix(".pbf") }
        XCTAssertGreaterThan(names.count, 1)
        _ = try fs.lookup(parent: column, name: names[0], caller: walker.caller)
        var entry: Entry?
        let taken = try LockTally.counting {
            entry = try fs.lookup(parent: column, name: names[1], caller: walker.caller)
        }
        XCTAssertGreaterThan(try XCTUnwrap(entry).attributes.size, 0)
        XCTAssertFalse(taken.isEmpty, "counted (a debug build)")
        XCTAssertLessThanOrEqual(Set(taken).count, 2, "locks taken: \(taken)")
        XCTAssertLessThanOrEqual(taken.count, 5)
    }

    /// The bridge's first try for a lookup (`quickLookup`): in a column of a pack whose view is kept, a tile's entry
    /// is the one `lookup` gives and its content is kept for the read that ends it; a missing tile is `.notFound`;
    /// anything else (a name that is no tile's, a parent that is no column, a pack not read yet, reading ahead)
    /// is left to `lookup`.
    func testAQuickLookupAnswersATileAsLookupDoesAndLeavesTheRestToIt() throws {
        let column = try walker.lookup("packs/helsinki/14/9326").attributes.inode
        let names = try walker.list(column).map(\.name).filter { $0.hasSuffix(".pbf") }
        XCTAssertGreaterThan(names.count, 1)
        // A renderer's lookup: its process listed nothing.
        let reader = Caller(uid: getuid(), gid: getgid(), pid: 4747)
        let quick = fs.quickLookup(parent: column, name: names[1], caller: reader)
        guard case .entry(let entry)? = quick else { return XCTFail("no quick entry: \(String(describing: quick))") }
        let inode = entry.attributes.inode
        XCTAssertNotNil(fs.cache.content(inode), "kept for the read that follows")
        let content = try fs.read(inode: inode, handle: 0, offset: 0, size: 1 << 20)
        XCTAssertEqual(UInt64(content.count), entry.attributes.size)
        XCTAssertEqual(content, try origin("tiles/helsinki/14/9326/" + names[1]))
        XCTAssertNil(fs.cache.content(inode), "the read to the end took the kept content")
        XCTAssertEqual(try fs.lookup(parent: column, name: names[1], caller: walker.caller), entry)
        XCTAssertEqual(fs.quickLookup(parent: column, name: "1.pbf", caller: walker.caller), .notFound)
        XCTAssertNil(fs.quickLookup(parent: column, name: "style.json", caller: walker.caller), "no tile's name")
        XCTAssertNil(fs.quickLookup(parent: column, name: "07.pbf", caller: walker.caller), "not the canonical y")
        let zoom = try walker.lookup("packs/helsinki/14").attributes.inode
        XCTAssertNil(fs.quickLookup(parent: zoom, name: "9326", caller: walker.caller), "a zoom is no column")
        let fresh = PackFilesystem(database: database, mountpoint: mountpoint)
        XCTAssertNil(fresh.quickLookup(parent: column, name: names[1], caller: walker.caller), "its pack not read yet")
        let ahead = PackFilesystem(database: database, mountpoint: mountpoint, caches: fs.caches, readAhead: .on)
        defer { ahead.stopReadingAhead() }
        XCTAssertNil(ahead.quickLookup(parent: column, name: names[1], caller: walker.caller), "reading ahead")
        let notUTF8: [UInt8] = [0x31, 0xFF, 0x2E, 0x70, 0x62, 0x66]
        XCTAssertNil(notUTF8.withUnsafeBufferPointer { fs.quickLookup(parent: column, name: $0, caller: walker.caller) })
    }
}

extension PackFilesystem {
    /// `quickLookup` of `name`'s bytes, as the bridge hands them over.
    fileprivate func quickLookup(parent: Inode, name: String, caller: Caller) -> QuickLookup? {
        Array(name.utf8).withUnsafeBufferPointer { quickLookup(parent: parent, name: $0, caller: caller) }
    }
}
