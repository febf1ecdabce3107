import Foundation
import PackStore
import TestSupport
import XCTest

/// What must hold after the kills: nothing stored was fetched again, and the pack the next
/// process completed is the one its definition describes, byte for byte.
extension CrashRig {
    /// Downloads and redefinitions: no request after a kill named a URL stored at the kill.
    func checkNoRefetch(_ kills: [Kill], file: StaticString = #filePath, line: UInt = #line) throws {
        for (index, kill) in kills.enumerated() {
            let again = try requests(after: kill.time).filter { kill.snapshot.stored.contains($0) }
            figures.refetches += again.count
            XCTAssertEqual(again.prefix(5), [], "stored before kill \(index + 1), fetched again (\(again.count))", file: file, line: line)
        }
    }

    /// Refreshes: no request after a kill named a member the refresh had already revalidated
    /// (its row committed since the refresh began), and, by the end, every member was requested
    /// since `touched`.
    func checkRefreshResumed(_ name: String, touched: Date, kills: [Kill],
                             file: StaticString = #filePath, line: UInt = #line) throws {
        for (index, kill) in kills.enumerated() {
            let done = kill.snapshot.packs[name]?.refreshed ?? []
            let again = try requests(after: kill.time).filter { done.contains($0) }
            figures.refetches += again.count
            XCTAssertEqual(again.prefix(5), [], "revalidated before kill \(index + 1), asked again (\(again.count))", file: file, line: line)
        }
        let members = try snapshot().packs[name]?.members ?? []
        let asked = Set(try requests(after: touched))
        XCTAssertEqual(members.subtracting(asked).sorted().prefix(5), [], "members the refresh never revalidated", file: file, line: line)
        XCTAssertNil(try snapshot().packs[name]?.refreshed, "the refresh is over", file: file, line: line)
    }

    /// Refreshes that change content (`OriginChange`): the kill left the pack as it was before
    /// the refresh (`before`), with its hash, or as the origin serves it now, all of it; never a
    /// mix. (The new pack's hash is recorded after the switch: none, or the new one.)
    func checkOldOrNew(_ name: String, _ kills: [Kill], before: StoreSnapshot.PackSnapshot,
                       file: StaticString = #filePath, line: UInt = #line) throws {
        var new = before.contents
        for path in OriginChange.paths { new[path] = try server.expectedContent(path) }
        for (index, kill) in kills.enumerated() {
            guard let pack = kill.snapshot.packs[name] else { return XCTFail("\(name) is gone", file: file, line: line) }
            if pack.contents == before.contents {
                XCTAssertEqual(pack.hashes, before.hashes, "kill \(index + 1): the old pack, its old hash", file: file, line: line)
                figures.oldAfterKill += 1
            } else {
                let changed = pack.contents.keys.filter { pack.contents[$0] != before.contents[$0] }.sorted()
                XCTAssertEqual(pack.contents, new, "kill \(index + 1): a mix, changed \(changed.prefix(5))", file: file, line: line)
                for (template, hash) in pack.hashes where template.contains("/tiles/helsinki/") {
                    XCTAssertNotEqual(hash, before.hashes[template], "kill \(index + 1): the new pack, the old hash", file: file, line: line)
                }
                figures.newAfterKill += 1
            }
        }
    }

    /// The pack is complete, holds exactly what `spec` needs, and every file the mount shows
    /// has the origin's bytes.
    func verifyPack(_ name: String, _ spec: RegionSpec, file: StaticString = #filePath, line: UInt = #line) throws {
        let snapshot = try self.snapshot()
        let pack = try XCTUnwrap(snapshot.packs[name], "\(name) is gone", file: file, line: line)
        XCTAssertEqual(pack.state, "complete", name, file: file, line: line)
        XCTAssertEqual(pack.members.count, try required(spec), "\(name) holds what \(spec) needs", file: file, line: line)
        if daemon != nil { try checkMountedContent(name, file: file, line: line) }
    }

    /// Every file under packs/<name>/ equals what the origin serves for it.
    func checkMountedContent(_ name: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let root = "\(packs)/\(name)"
        var compared = 0
        for relative in try FileManager.default.subpathsOfDirectory(atPath: root) {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: root + "/" + relative, isDirectory: &isDirectory),
                  !isDirectory.boolValue, let origin = Self.originPath(of: relative) else { continue }
            let served = FileManager.default.contents(atPath: root + "/" + relative)
            XCTAssertEqual(served, try server.expectedContent(origin), "\(name)/\(relative)", file: file, line: line)
            compared += 1
        }
        XCTAssertGreaterThan(compared, 0, "\(name) shows files", file: file, line: line)
    }

    /// The origin path of a file in a bright-style pack; nil for generated files (style.json,
    /// progress.json, a source's generated tiles.json).
    static func originPath(of relative: String) -> String? {
        let parts = relative.split(separator: "/").map(String.init)
        let tileSets = ["openmaptiles": "helsinki", "land": "land", "relief": "geography-class-png"]
        switch parts.count {
        case 3 where Int(parts[0]) != nil: return "/tiles/helsinki/" + relative
        case 3 where parts[0] == "glyphs": return "/fonts/\(parts[1])/\(parts[2])"
        case 2 where parts[0] == "sprites": return "/sprites/" + parts[1].replacingOccurrences(of: "default", with: "bright")
        case 3 where parts == ["sources", "openmaptiles", "tiles.json"]: return "/tiles/helsinki.json"
        case 5 where parts[0] == "sources":
            return tileSets[parts[1]].map { "/tiles/\($0)/" + parts[2...].joined(separator: "/") }
        default: return nil
        }
    }
}
