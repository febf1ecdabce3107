import Basics
import Foundation
@testable import PackFS
import PackStore
import TestSupport
import XCTest

/// The root of a `--web-base` mount: `packs.json` and the web page's files (`WebPage`), read by
/// the model as the kernel would. Without a web base the root shows neither.
final class WebRootTests: WriteTestCase {
    /// A page directory holding every file `WebPage.names` lists, each with its name as content.
    func pageDirectory() throws -> String {
        let directory = temp.path("web")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        for name in WebPage.names { try Data(name.utf8).write(to: URL(fileURLWithPath: directory + "/" + name)) }
        return directory
    }

    func webFilesystem(page: WebPage?) -> PackFilesystem {
        PackFilesystem(database: database, mountpoint: "/mnt", webBase: "https://maps.example/packfs", webPage: page)
    }

    func testWithoutAWebBaseTheRootHoldsOnlyStatusAndPacks() throws {
        XCTAssertEqual(try names(""), ["status.json", "packs"])
        fs = PackFilesystem(database: database, mountpoint: "/mnt", webPage: try WebPage.load(from: try pageDirectory()))
        XCTAssertEqual(try names(""), ["status.json", "packs"], "a page without a web base is not shown")
        for name in ["packs.json", "index.html"] {
            XCTAssertEqual(error { _ = try walker.lookup(name) }, .notFound, name)
        }
    }

    func testAWebBaseShowsPacksJSONAndThePageReadOnly() throws {
        let page = try WebPage.load(from: try pageDirectory())
        fs = webFilesystem(page: page)
        XCTAssertEqual(try names(""), ["status.json", "packs", "packs.json"] + WebPage.names)
        for name in WebPage.names {
            let entry = try walker.lookup(name)
            XCTAssertEqual(entry.attributes.permissions, 0o444, name)
            XCTAssertEqual(entry.entryTimeout, 3600, name)
            XCTAssertEqual(try text(name), name)
            XCTAssertEqual(try fs.open(inode: entry.attributes.inode, flags: O_RDONLY, caller: caller).keepCache, true)
            XCTAssertEqual(error { _ = try fs.open(inode: entry.attributes.inode, flags: O_WRONLY, caller: caller) }?.errno, EPERM)
            XCTAssertEqual(error { try fs.unlink(parent: .root, name: name, caller: caller) }?.errno, EPERM)
        }
        let list = try walker.lookup("packs.json")
        XCTAssertEqual(list.attributeTimeout, 0, "live")
        XCTAssertEqual(try fs.open(inode: list.attributes.inode, flags: O_RDONLY, caller: caller).directIO, true)

        fs = webFilesystem(page: nil)
        XCTAssertEqual(try names(""), ["status.json", "packs", "packs.json"], "no page: packs.json alone")
    }

    /// Each pack's progress.json (but its estimate) with its name, bounds and whether it shows
    /// web-style.json, in id order; a pack that goes leaves it.
    func testPacksJSONListsEveryPackWithItsProgress() throws {
        fs = webFilesystem(page: nil)
        let document = try XCTUnwrap(JSONValue.parse(Data(try text("packs.json").utf8)))
        let entries = try XCTUnwrap(document["packs"]?.array)
        XCTAssertEqual(entries.map { $0["name"] }, [.string("alpha"), .string("beta")])
        for entry in entries {
            let name = try XCTUnwrap(entry["name"]?.string)
            var progress = try XCTUnwrap(database.progress(of: try region(name)).json.object)
            progress["estimate"] = nil
            for (key, value) in progress { XCTAssertEqual(entry[key], value, "\(name) \(key)") }
            XCTAssertEqual(entry["bounds"], .array([0, 0, 1, 1].map { JSONValue.number($0) }), name)
            XCTAssertEqual(entry["web_style"], .bool(true), name)
        }
        try database.removePack(try region("alpha"))
        XCTAssertEqual(JSONValue.parse(Data(try text("packs.json").utf8))?["packs"]?.array?.map { $0["name"] }, [.string("beta")])
    }

    /// The page's files come from memory: they read with the database closed.
    func testThePageIsReadWithoutTheDatabase() throws {
        fs = webFilesystem(page: try WebPage.load(from: try pageDirectory()))
        try database.close()
        XCTAssertEqual(try text("index.html"), "index.html")
        XCTAssertEqual(try fs.getattr(inode: try walker.lookup("maplibre-gl.js").attributes.inode, caller: caller).attributes.size,
                       UInt64("maplibre-gl.js".utf8.count))
        XCTAssertNotNil(error { _ = try text("packs.json") }, "packs.json does read the database")
    }

    func testADirectoryWithoutThePageNamesWhatIsMissing() throws {
        let directory = try pageDirectory()
        try FileManager.default.removeItem(atPath: directory + "/maplibre-gl.js")
        XCTAssertThrowsError(try WebPage.load(from: directory)) {
            XCTAssertEqual($0 as? WebPageError, .unreadable(path: directory + "/maplibre-gl.js", reason: "No such file or directory"))
        }
        XCTAssertThrowsError(try WebPage.load(from: temp.path("nowhere"))) {
            XCTAssertEqual(String(describing: $0), temp.path("nowhere") + "/index.html: No such file or directory")
        }
    }
}
