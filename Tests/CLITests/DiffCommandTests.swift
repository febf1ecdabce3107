import Basics
import Foundation
import PackStore
import SQLiteDB
import StyleModel
import TestSupport
import XCTest

/// `packfs diff` as a user runs it, on martin's fixtures (built with `sqlite3 FILE < x.sql`):
/// martin's figures and his own patch's rows; the patch applied by the SQL of martin's docs (run
/// by the sqlite3 CLI) gives NEW; a file against itself; a pack on either side gives the patch
/// of its export; OUT on S3; and every mistake one line, exit 1, no file.
final class DiffCommandTests: CLITestCase {
    /// The two fixtures imported as packs "cities" and "cities next", and each pack's export.
    private struct Packs {
        var directory: TemporaryDirectory
        var db: String
        var oldExport: String
        var newExport: String
    }

    private static let packs = ClassFixture<Packs>()

    override class func setUp() {
        super.setUp()
        packs.setUp {
            let directory = try classDirectory()
            let db = directory.path("packs.db")
            var exports: [String] = []
            for (fixture, name) in [("world_cities", "cities"), ("world_cities_modified", "cities next")] {
                let file = try MartinFixtures.build(fixture, in: directory)
                let export = directory.path("\(name).mbtiles")
                for arguments in [["import", db, file, "--name", name, "--accept-hash-mismatch"], ["export", db, name, export]] {
                    let outcome = try Packfs.run(arguments)
                    guard outcome.status == 0 else { throw TestServer.Failure.startFailed("\(arguments): \(outcome.text)") }
                }
                exports.append(export)
            }
            return Packs(directory: directory, db: db, oldExport: exports[0], newExport: exports[1])
        }
    }

    override class func tearDown() {
        packs.tearDown { _ in }
        super.tearDown()
    }

    private var scratch: ScratchFilesystem?

    override func tearDown() {
        scratch?.remove()
        super.tearDown()
    }

    private var old: String { temp.path("world_cities.mbtiles") }
    private var new: String { temp.path("world_cities_modified.mbtiles") }

    override func setUpWithError() throws {
        try super.setUpWithError()
        _ = try MartinFixtures.build("world_cities", in: temp)
        _ = try MartinFixtures.build("world_cities_modified", in: temp)
    }

    func testMartinsFixturesGiveMartinsHashesAndHisPatchsRows() throws {
        let out = temp.path("diff.mbtiles")
        let outcome = try packfs("diff", old, new, out)
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        let metadata = try MBTilesRows.metadata(of: out)
        XCTAssertEqual(metadata["agg_tiles_hash_before_apply"], "08934F8E3E58DED510920E1DE6F4E78F")
        XCTAssertEqual(metadata["agg_tiles_hash_after_apply"], "72D8C992AF67EC97093B0087933FA160")
        XCTAssertEqual(metadata["agg_tiles_hash"], try MBTilesRows.hash(of: out))
        // martin's own patch between the two: the same tile rows, the same rows of metadata but
        // for the hashes (his dump's are stale: they name the dumps' stored hashes).
        let martins = try MartinFixtures.build("world_cities_diff", in: temp)
        XCTAssertEqual(try MBTilesRows.tiles(of: out), try MBTilesRows.tiles(of: martins))
        XCTAssertEqual(try MBTilesRows.tiles(of: out), ["0/0/0 NULL", "4/4/4 1f8b080000000000000303000000000000000000"])
        XCTAssertEqual(try MBTilesRows.metadata(of: out).filter { !$0.key.hasPrefix("agg_tiles_hash") },
                       try MBTilesRows.metadata(of: martins).filter { !$0.key.hasPrefix("agg_tiles_hash") })
        XCTAssertTrue(outcome.stdout.contains("0 changed, 1 added, 1 deleted (OLD 8 tiles, NEW 8 tiles)"), outcome.stdout)
    }

    /// docs/content/mbtiles-diff.md, "Applying diff with SQLite": its SQL, run by sqlite3 with the
    /// patch's name as the parameter @diffDbFilename. (The docs' shell line splits the SQL into
    /// one argument per line, so that sqlite3 runs `DELETE FROM tiles` on its own and then fails:
    /// here the SQL is one argument, as it is meant.)
    func testThePatchAppliedByTheSQLOfMartinsDocsGivesNEW() throws {
        let out = temp.path("diff.mbtiles")
        XCTAssertEqual(try packfs("diff", old, new, out).status, 0)
        let applied = temp.path("applied.mbtiles")
        try FileManager.default.copyItem(atPath: old, toPath: applied)
        let sql = "ATTACH DATABASE @diffDbFilename AS diffDb; "
            + "DELETE FROM tiles "
            + "  WHERE (zoom_level, tile_column, tile_row) IN ( "
            + "    SELECT zoom_level, tile_column, tile_row "
            + "    FROM diffDb.tiles "
            + "    WHERE tile_data ISNULL); "
            + "INSERT OR REPLACE INTO tiles (zoom_level, tile_column, tile_row, tile_data) "
            + "  SELECT * FROM diffDb.tiles WHERE tile_data NOTNULL;"
        let run = try Command.run("/usr/bin/sqlite3", [applied, "-bail", "-cmd", ".parameter set @diffDbFilename \(out) ", sql])
        XCTAssertEqual(run.status, 0, run.text)
        XCTAssertEqual(try MBTilesRows.hash(of: applied), "72D8C992AF67EC97093B0087933FA160")
        XCTAssertEqual(try MBTilesRows.hash(of: applied),
                       try MBTilesRows.metadata(of: out)["agg_tiles_hash_after_apply"])
        XCTAssertEqual(try MBTilesRows.tiles(of: applied), try MBTilesRows.tiles(of: new))
        XCTAssertNotEqual(try MBTilesRows.tiles(of: old), try MBTilesRows.tiles(of: new))
    }

    func testAFileAgainstItselfIsAPatchWithoutTiles() throws {
        let out = temp.path("nothing.mbtiles")
        let outcome = try packfs("diff", old, old, out, "--json")
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        XCTAssertEqual(try MBTilesRows.tiles(of: out), [])
        let metadata = try MBTilesRows.metadata(of: out)
        XCTAssertEqual(metadata["agg_tiles_hash"], "D41D8CD98F00B204E9800998ECF8427E")
        XCTAssertEqual(metadata["agg_tiles_hash_before_apply"], "08934F8E3E58DED510920E1DE6F4E78F")
        XCTAssertEqual(metadata["agg_tiles_hash_after_apply"], "08934F8E3E58DED510920E1DE6F4E78F")
        let json = try XCTUnwrap(JSONValue.parse(Data(outcome.stdout.utf8)), outcome.stdout)
        XCTAssertEqual(json["changed"], .number(0))
        XCTAssertEqual(json["agg_tiles_hash"], .string("D41D8CD98F00B204E9800998ECF8427E"))
    }

    /// A pack counts as its MBTiles export: on either side, or both, the patch is the patch of the
    /// exports, table for table; and its tiles and hashes are those of the files imported.
    func testAPackOnEitherSideGivesThePatchOfItsExport() throws {
        let packs = try Self.packs.value()
        let files = temp.path("files.mbtiles")
        XCTAssertEqual(try packfs("diff", old, new, files).status, 0)
        let cases: [(name: String, arguments: [String], like: [String])] = [
            ("old pack", ["--old-pack", packs.db, "cities", new], [packs.oldExport, new]),
            ("new pack", [old, "--new-pack", packs.db, "cities next"], [old, packs.newExport]),
            ("both packs", ["--old-pack", packs.db, "cities", "--new-pack", packs.db, "cities next"],
             [packs.oldExport, packs.newExport]),
        ]
        for (label, arguments, like) in cases {
            let (out, expected) = (temp.path("\(label).mbtiles"), temp.path("\(label) of exports.mbtiles"))
            let outcome = try packfs(["diff"] + arguments + [out])
            XCTAssertEqual(outcome.status, 0, "\(label): \(outcome.stderr)")
            XCTAssertEqual(try packfs(["diff"] + like + [expected]).status, 0, label)
            XCTAssertEqual(try MBTilesRows.tiles(of: out), try MBTilesRows.tiles(of: expected), label)
            XCTAssertEqual(try MBTilesRows.metadata(of: out), try MBTilesRows.metadata(of: expected), label)
            XCTAssertEqual(try MBTilesRows.tiles(of: out), try MBTilesRows.tiles(of: files), label)
            for key in ["agg_tiles_hash", "agg_tiles_hash_before_apply", "agg_tiles_hash_after_apply"] {
                XCTAssertEqual(try MBTilesRows.metadata(of: out)[key], try MBTilesRows.metadata(of: files)[key],
                               "\(label): \(key)")
            }
        }
    }

    /// An s3:// OUT: the patch a local OUT gets, uploaded; the staging directory left empty; a
    /// diff that fails uploads nothing.
    func testThePatchUploadsToS3() throws {
        let (s3, db) = (try S3Server.moto(), try Self.packs.value().db)
        let staging = temp.path("staging")
        try FileManager.default.createDirectory(atPath: staging, withIntermediateDirectories: false)
        let upload = { (name: String) in
            try Command.runApart(
                Packfs.path, ["diff", self.old, "--new-pack", db, name, "s3://packs/weekly/cities.mbtiles", "--staging", staging,
                              "--minimum-part-size", "1K", "--part-size", "8K"],
                environment: s3.environment)
        }
        XCTAssertEqual(try upload("nowhere").status, 1)
        XCTAssertEqual(try s3.keys(), [])
        let uploaded = try upload("cities next")
        XCTAssertEqual(uploaded.status, 0, uploaded.stderr)
        XCTAssertTrue(
            uploaded.stdout.contains("s3://packs/weekly/cities.mbtiles: 0 changed, 1 added, 1 deleted"), uploaded.stdout)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: staging), [])
        let object = try XCTUnwrap(s3.object("weekly/cities.mbtiles"))
        let copy = temp.path("downloaded.mbtiles")
        try object.write(to: URL(fileURLWithPath: copy))
        let local = temp.path("local.mbtiles")
        XCTAssertEqual(try packfs("diff", old, "--new-pack", db, "cities next", local).status, 0)
        XCTAssertEqual(try MBTilesRows.tiles(of: copy), try MBTilesRows.tiles(of: local))
        XCTAssertEqual(try MBTilesRows.metadata(of: copy), try MBTilesRows.metadata(of: local))
        XCTAssertEqual(try s3.contentType("weekly/cities.mbtiles"), "application/vnd.sqlite3")
    }

    /// Each bad side: exit 1, one line on stderr naming what is wrong, nothing on stdout, no file
    /// made (OUT, or anything hidden beside it).
    func testEachBadSideIsOneLineAndLeavesNoFile() throws {
        let png = temp.path("png.mbtiles")
        let made = try Command.run("/usr/bin/sqlite3", [png, """
            CREATE TABLE metadata (name text, value text); INSERT INTO metadata VALUES ('format', 'png');
            CREATE TABLE tiles (zoom_level integer, tile_column integer, tile_row integer, tile_data blob);
            """])
        XCTAssertEqual(made.status, 0, made.text)
        try Data("not a database".utf8).write(to: temp.url.appendingPathComponent("text.mbtiles"))
        XCTAssertEqual(try packfs("diff", old, new, temp.path("patch.mbtiles")).status, 0)
        let db = try Self.packs.value().db
        let out = temp.path("out.mbtiles")
        try expectRefusals([
            ([temp.path("absent.mbtiles"), new, out], "\(temp.path("absent.mbtiles")): no such file"),
            ([temp.url.path, new, out], "cannot read \(temp.url.path): it is a directory"),
            ([old, temp.path("text.mbtiles"), out], "cannot read \(temp.path("text.mbtiles")): not an SQLite file"),
            ([old, db, out], "\(db) is not an MBTiles file: it has no `metadata` table"),
            ([temp.path("patch.mbtiles"), new, out], "\(temp.path("patch.mbtiles")) is a patch"),
            ([old, png, out], "\(old) holds pbf tiles and \(png) png tiles"),
            (["--old-pack", db, "nowhere", new, out], #"no pack named "nowhere""#),
            (["--old-pack", temp.path("absent.db"), "cities", new, out], temp.path("absent.db")),
            (["--old-pack", db, "cities", "--source", "roads", new, out], #"pack "cities" has no tiled source "roads""#),
        ])
    }

    /// An OUT that exists (left byte for byte), is a directory, or is in no directory; and
    /// --source with no pack side, a usage error (exit 2).
    func testABadOUTIsOneLineAndLeavesNoFile() throws {
        try Data("keep me".utf8).write(to: temp.url.appendingPathComponent("taken.mbtiles"))
        try expectRefusals([
            ([old, new, temp.path("taken.mbtiles")], "\(temp.path("taken.mbtiles")): it exists"),
            ([old, new, temp.url.path], "\(temp.url.path): it is a directory"),
            ([old, new, temp.path("absent/out.mbtiles")], "there is no directory \(temp.path("absent"))"),
        ])
        XCTAssertEqual(try Data(contentsOf: temp.url.appendingPathComponent("taken.mbtiles")), Data("keep me".utf8))
        XCTAssertEqual(try packfs("diff", old, new, temp.path("out.mbtiles"), "--source", "roads").status, 2)
    }

    /// OUT on a full file system: the write fails naming OUT and the cause; nothing is left.
    func testAFullDiskFailsAndLeavesNoFile() throws {
        guard getuid() == 0 else {
            if isCI { XCTFail("not root: cannot mount a tmpfs") }
            throw XCTSkip("mounting a tmpfs needs root")
        }
        let scratch = try ScratchFilesystem(at: temp.path("scratch"), size: "64k")
        self.scratch = scratch
        try scratch.fill()
        let out = scratch.path + "/diff.mbtiles"
        let outcome = try packfs("diff", old, new, out)
        XCTAssertEqual(outcome.status, 1, outcome.stdout)
        XCTAssertTrue(outcome.stderr.hasPrefix("packfs: cannot ") && outcome.stderr.contains(out), outcome.stderr)
        XCTAssertTrue(outcome.stderr.contains("full"), outcome.stderr)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: scratch.path), ["filler"])
    }

    // MARK: - Helpers

    /// Runs `packfs diff` with each case's arguments: exit 1, one line on stderr holding `says`,
    /// nothing on stdout, the test's directory as it was.
    private func expectRefusals(_ cases: [(arguments: [String], says: String)]) throws {
        let before = try listing()
        for (arguments, says) in cases {
            let outcome = try packfs(["diff"] + arguments)
            let label = arguments.joined(separator: " ")
            XCTAssertEqual(outcome.status, 1, label)
            XCTAssertEqual(outcome.stdout, "", label)
            XCTAssertTrue(outcome.stderr.hasPrefix("packfs: ") && outcome.stderr.contains(says), "\(label): \(outcome.stderr)")
            XCTAssertEqual(outcome.stderr.filter { $0 == "\n" }.count, 1, "\(label): \(outcome.stderr)")
            XCTAssertEqual(try listing(), before, label)
        }
    }

    /// Every name in the test's directory, hidden ones too.
    private func listing() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: temp.url.path).sorted()
    }

}
