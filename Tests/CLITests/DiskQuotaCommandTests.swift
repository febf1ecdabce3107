import Basics
import Foundation
import PackStore
import TestSupport
import XCTest

/// `--disk-quota` (docs/design.md §4, issue 11): the ambient cache goes first; a download that
/// needs more stops in `error` with a message that says so, keeps every batch it committed, and
/// resumes from them once the quota allows.
final class DiskQuotaCommandTests: CLITestCase {
    private func region(_ base: String) throws -> String {
        let region = temp.path("region.json")
        try """
            {"style": "\(base)/styles/bright.json", "bounds": [24.93, 60.16, 24.96, 60.18], "minzoom": 0, "maxzoom": 14}
            """.write(toFile: region, atomically: true, encoding: .utf8)
        return region
    }

    /// Pages in use by the Helsinki pack alone, measured in this run.
    private func helsinkiBytes(_ region: String) throws -> Int64 {
        let path = temp.path("measure.db")
        let outcome = try packfs("download", path, "helsinki", region)
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        let database = try OfflineDatabase.open(path: path, mode: .readOnly)
        defer { try? database.close() }
        return try database.diskUsage().usedBytes
    }

    func testADownloadOverTheQuotaStopsKeepingWhatItStoredAndResumes() throws {
        let nginx = try TestServer.nginx()
        server = nginx
        let region = try region(nginx.baseURL)
        let quota = try helsinkiBytes(region) / 2
        let stopped = try packfs("download", db, "helsinki", region, "--disk-quota", String(quota))
        XCTAssertEqual(stopped.status, 1)
        XCTAssertTrue(stopped.stderr.contains("disk quota reached"), stopped.stderr)
        XCTAssertTrue(stopped.stderr.contains("quota of \(quota)"), stopped.stderr)

        let status = try XCTUnwrap(JSONValue.parse(Data(try packfs("status", db, "helsinki", "--json").stdout.utf8)))
        XCTAssertEqual(status["state"], .string("error"))
        XCTAssertTrue(status["error"]?.string?.contains("--disk-quota") ?? false, "\(status)")
        let kept = try XCTUnwrap(status["completed_resources"]?.number)
        XCTAssertGreaterThan(kept, 0, "the batches committed before the quota stay")
        XCTAssertLessThanOrEqual(try XCTUnwrap(status["database"]?["used_bytes"]?.number), Double(quota))
        XCTAssertEqual(try sqlite("PRAGMA integrity_check"), "ok")

        let before = try nginx.waitForLog(count: 1).count
        let resumed = try packfs("download", db, "helsinki", region)
        XCTAssertEqual(resumed.status, 0, resumed.stderr)
        let requests = try nginx.waitForLog(count: before + 1).count - before
        XCTAssertLessThanOrEqual(Double(requests), 322 - kept + 2, "what was kept is not fetched again")
    }

    func testTheAmbientCacheIsEvictedFirst() throws {
        let nginx = try TestServer.nginx()
        server = nginx
        let region = try region(nginx.baseURL)
        let pack = try helsinkiBytes(region)
        let ambient: Int64 = 4 << 20
        let empty = try fillAmbient(bytes: ambient)
        // Room for the pack only once most of the ambient cache is gone.
        let quota = empty + pack + (1 << 20)
        let outcome = try packfs("download", db, "helsinki", region, "--disk-quota", String(quota))
        XCTAssertEqual(outcome.status, 0, outcome.stderr)

        let database = try OfflineDatabase.open(path: db, mode: .readOnly)
        defer { try? database.close() }
        let left = try XCTUnwrap(database.ambientUsage()?.bytes)
        XCTAssertLessThan(left, ambient - (2 << 20), "ambient cache evicted to make room")
        XCTAssertGreaterThan(left, 0, "and no more than needed")
        XCTAssertLessThanOrEqual(try database.diskUsage().usedBytes, quota)
        XCTAssertEqual(try database.progress(of: try database.pack(named: "helsinki").id).status.state, .complete)
    }

    func testTheQuotaMustBeAByteCount() throws {
        let outcome = try packfs("download", db, "x", "region.json", "--disk-quota", "lots")
        XCTAssertEqual(outcome.status, 2)
        XCTAssertTrue(outcome.stderr.contains("--disk-quota: \"lots\" is not a byte count"), outcome.stderr)
    }

    /// `bytes` of incompressible ambient tiles under a limit that keeps them; returns the bytes in
    /// use of the database without them.
    private func fillAmbient(bytes: Int64) throws -> Int64 {
        let database = try OfflineDatabase.open(path: db)
        defer { try? database.close() }
        let empty = try database.diskUsage().usedBytes
        _ = try database.setAmbientLimit(1 << 30)
        var state: UInt64 = 42
        try database.write { batch in
            for index in 0..<Int(bytes / 4096) {
                let noise = Data((0..<4096).map { _ -> UInt8 in
                    state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                    return UInt8(truncatingIfNeeded: state >> 33)
                })
                let key = TileKey(urlTemplate: "http://old.example/{z}/{x}/{y}.png", pixelRatio: 1, z: 12, x: index, y: 0)
                _ = try batch.putTile(key, data: StoredData(bytes: noise, compressed: false), headers: CacheHeaders())
            }
        }
        return empty
    }

    private func sqlite(_ sql: String) throws -> String {
        let outcome = try run(URL(fileURLWithPath: "/usr/bin/sqlite3"), [db, sql])
        return outcome.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
