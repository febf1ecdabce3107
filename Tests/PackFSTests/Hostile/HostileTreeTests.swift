import FuzzBodies
import Foundation
import PackFS
import PackStore
import TestSupport
import XCTest

/// The hostile database files of the corpus that open, walked as the kernel walks a mount: every
/// directory listed, every name looked up, every file read. A row that does not decode fails
/// alone with the words the manifest expects; nothing traps, names in a directory are distinct
/// and each looks up to the inode its listing gave.
final class HostileTreeTests: PackFSTestCase {

    func testEveryHostileDatabaseWalksWithoutATrap() throws {
        let cases = try HostileCorpus.databaseCopies(refused: false, in: temp)
        XCTAssertGreaterThanOrEqual(cases.count, 15)
        for (item, path) in cases {
            let database = try OfflineDatabase.open(path: path, mode: .mount)
            defer { try? database.close() }
            let visit = TreeVisit(filesystem: PackFilesystem(database: database, mountpoint: "/mnt"), budget: 100_000)
            XCTAssertNoThrow(try visit.visit(), "\(item)")
            // Names the listing may leave out (a pack id no inode holds) are looked up too.
            for path in (item.strings("packs") ?? []).map({ "packs/" + $0 }) + (item.strings("lookup") ?? []) {
                visit.lookup(path)
            }
            let errors = visit.errors.joined(separator: "\n")
            if let expect = item.expect {
                assertMentions(errors, expect, item)
            } else {
                XCTAssertEqual(visit.errors, [], "\(item)")
            }
        }
    }

    /// Every input a fuzz target found, through the body that found it: each stays fixed. An
    /// input found as a hang (`timeout-...`) must also be quick: libFuzzer gave it 10 s under
    /// its instrumentation, about ten times a plain debug build's time.
    func testEveryFuzzFindingIsHandled() throws {
        for target in FuzzBodies.Target.allCases {
            for finding in HostileCorpus.findings(target.rawValue) {
                let started = Date()
                XCTAssertNoThrow(try FuzzBodies.run(target, Data(contentsOf: finding)), "\(target) \(finding.lastPathComponent)")
                if finding.lastPathComponent.hasPrefix("timeout-") {
                    XCTAssertLessThan(Date().timeIntervalSince(started), 1, "\(target) \(finding.lastPathComponent)")
                }
            }
        }
    }

    /// The corpus's hostile archives (offsets near 2^64, sections past the end, ids and runs that
    /// wrap) through both readers of the archive body, the file's and the ranges': every one is
    /// a handled error or a good archive, never a trap or a broken invariant.
    func testEveryHostileArchiveIsHandledByTheFileAndTheRangeReaders() throws {
        let cases = try HostileCorpus.cases("archive")
        XCTAssertGreaterThanOrEqual(cases.count, 12)
        for item in cases {
            XCTAssertNoThrow(try FuzzBodies.run(.pmtiles, item.data()), "\(item)")
        }
    }

    /// The archive body takes the fixture archive whole (an import and a walk), and a damaged copy
    /// of it (a directory cut short) as a handled error, nothing stored.
    func testTheArchiveBodyReadsTheFixtureArchive() throws {
        let archive = try Data(contentsOf: ProjectPaths.world.appendingPathComponent("tiles/helsinki.pmtiles"))
        XCTAssertNoThrow(try FuzzBodies.run(.pmtiles, archive))
        XCTAssertNoThrow(try FuzzBodies.run(.pmtiles, archive.prefix(180)))
        var flipped = archive
        flipped[130] ^= 0xFF  // inside the gzipped root directory
        XCTAssertNoThrow(try FuzzBodies.run(.pmtiles, flipped))
    }
}
