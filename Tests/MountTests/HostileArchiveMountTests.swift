import Foundation
import PackStore
import TestSupport
import XCTest

/// The corpus's hostile PMTiles archives (Fixtures/hostile/archives: offsets near 2^64, sections
/// past the end, ids and runs that wrap, leaves in a loop) served by nginx as `pmtiles://`
/// sources, to a live `packfs` daemon and to `packfs estimate`: each pack ends in `error` naming
/// the archive and what is wrong with it (or completes, for what must be accepted), the daemon
/// keeps serving, the pack made before them stays byte for byte, and estimate exits 1 with one
/// line, never a trap (but for what only a tile's range finds: estimate reads no tile).
final class HostileArchiveMountTests: HostileMountTestCase {
    func testHostileArchivesEndTheirPackInErrorNamingTheArchiveWhileTheDaemonServes() throws {
        let cases = try HostileCorpus.cases("archive")
        XCTAssertGreaterThanOrEqual(cases.count, 12)
        server = try TestServer.nginx(world: try hostileWorld(cases))
        try mountPackFS(["--retry-delay", "0.01"])
        let good = try goodPack("good")
        for item in cases {
            XCTAssertEqual(writeFile(packs + "/a-\(item.stem).region", region(item)), 0, "\(item)")
        }
        for item in cases {
            let state = waitForState("a-\(item.stem)", ["complete", "error"], timeout: 120)
            let error = progress("a-\(item.stem)")?["error"]?.string ?? ""
            guard let expect = item.expect else {
                XCTAssertEqual(state, "complete", "\(item): \(error)")
                continue
            }
            XCTAssertEqual(state, "error", "\(item)")
            assertMentions(error, expect + [archiveURL(item)], item)
        }
        assertServing()
        assertUnchanged("good", good)
    }

    func testEstimateOfAHostileArchiveExitsOneWithOneLine() throws {
        let cases = try HostileCorpus.cases("archive")
        server = try TestServer.nginx(world: try hostileWorld(cases))
        for item in cases {
            let path = temp.path(item.stem + ".json")
            try region(item).write(to: URL(fileURLWithPath: path))
            let outcome = try Packfs.run(["estimate", path])
            guard let expect = item.expect, item.string("estimate") == nil else {
                XCTAssertEqual(outcome.status, 0, "\(item): \(outcome.text)")
                continue
            }
            XCTAssertEqual(outcome.status, 1, "\(item): \(outcome.text)")
            let lines = outcome.text.split(separator: "\n")
            XCTAssertEqual(lines.count, 1, "\(item): \(outcome.text)")
            assertMentions(outcome.text, expect + [archiveURL(item)], item)
        }
    }

    private func archiveURL(_ item: HostileCase) -> String {
        "pmtiles://" + server.baseURL + "/hostile/" + item.file
    }

    /// Central Helsinki at zooms 0-8: the archives hold its tiles at 6-8.
    private func region(_ item: HostileCase) -> Data {
        Data(Self.region(style: server.baseURL + "/hostile/archive-styles/\(item.stem).json", maxZoom: 8).utf8)
    }

    /// The fixture world, with the corpus's archives under hostile/archives and a style naming each.
    private func hostileWorld(_ cases: [HostileCase]) throws -> URL {
        let root = temp.url.appendingPathComponent("world")
        let hostile = root.appendingPathComponent("hostile")
        try FileManager.default.copyItem(at: ProjectPaths.world, to: root)
        try FileManager.default.createDirectory(at: hostile.appendingPathComponent("archive-styles"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            at: HostileCorpus.root.appendingPathComponent("archives"), to: hostile.appendingPathComponent("archives"))
        for item in cases {
            let style = """
                {"version": 8, "sources": {"openmaptiles": {"type": "vector", "url": "pmtiles://{base}/hostile/\(item.file)"}},
                 "layers": [{"id": "water", "type": "fill", "source": "openmaptiles", "source-layer": "water"}]}
                """
            try Data(style.utf8).write(to: hostile.appendingPathComponent("archive-styles/\(item.stem).json"))
        }
        return root
    }
}
