import Basics
import Downloader
import Foundation
@testable import PackLifecycle
import PackStore
import StyleModel
import TestSupport
import XCTest

/// A whole pack's hash comes after `complete`, in the background (docs/design.md §7): owed in the
/// transaction that records the state, computed by the manager's hasher, never recorded from a
/// walk a change cut; a hash under the older export rule is confirmed and recomputed.
final class PackHasherTests: LifecycleTestCase {
    override func setUpWithError() throws {
        try super.setUpWithError()
        server = try TestServer.nginx()
    }

    /// The Helsinki pack downloaded through the manager; returns once its hash is recorded.
    func downloadedPack() throws -> Pack {
        makeManager()
        let pack = try submit("p")
        try wait(for: "the hash after complete") {
            try state(pack) == .complete && !database.hashesPending(of: pack.id) && !database.recordedHashes(of: pack.id).isEmpty
        }
        return pack
    }

    /// One source's hashes under each rule, computed serially from the store (`PackHash`).
    func hashes(_ pack: Pack, rule: ExportRule) throws -> [String: String] {
        var hashes: [String: String] = [:]
        for source in try XCTUnwrap(PackStyle.load(pack, from: database)).sources {
            guard let hash = try PackHash.compute(source, in: database, rule: rule) else { continue }
            hashes[hash.columns.urlTemplate] = hash.hash
        }
        return hashes
    }

    func recorded(_ pack: Pack) throws -> [String: RecordedHash] {
        Dictionary(uniqueKeysWithValues: try database.recordedHashes(of: pack.id).map { ($0.urlTemplate, $0) })
    }

    func testTheBackgroundHashIsTheSerialOneUnderTheCurrentRule() throws {
        let pack = try downloadedPack()
        let recorded = try recorded(pack)
        XCTAssertEqual(recorded.mapValues(\.hash), try hashes(pack, rule: .sameStream))
        XCTAssertEqual(Set(recorded.values.map(\.rule)), [ExportRule.sameStream.rawValue])
        XCTAssertTrue(events.hashed.contains(pack.id), "the sink heard of it (progress.json is forgotten)")
        // nginx gzips the vector tiles: their streams are nginx's, so rule 1 (deflated again) differs.
        let helsinki = try XCTUnwrap(recorded.keys.first { $0.contains("/tiles/helsinki/") })
        XCTAssertNotEqual(try hashes(pack, rule: .deflatedAgain)[helsinki], recorded[helsinki]?.hash)
    }

    /// A walk of many small batches (a mount's budget, made smaller than the pack), several under way at
    /// once, hashes as one stream in order: the serial hash.
    func testSmallBatchesHashAsTheSerialOne() throws {
        let pack = try downloadedPack()
        manager.stop()
        let small = SourceWalk.Budget(batchBytes: 16 << 10, inFlight: 2)
        let walked = try PackHasher.hashes(of: pack, in: database, budget: small, cancelled: { false })
        XCTAssertEqual(Dictionary(uniqueKeysWithValues: walked.map { ($0.columns.urlTemplate, $0.hash) }), try hashes(pack, rule: .current))
        XCTAssertGreaterThan(walked.map(\.tiles).reduce(0, +), 10)
    }

    /// A request renewed while its walk was under way (a patch, a refresh) is not settled by the
    /// old token: the hash is recorded only under the new one.
    func testARenewedRequestIsNotRecordedUnderTheOldToken() throws {
        let pack = try downloadedPack()
        manager.stop()
        let old = try database.write { try $0.requestHashes(of: pack.id) }
        try database.write { try $0.renewHashRequest(of: pack.id) }
        XCTAssertFalse(try database.write { try $0.recordHashes([], of: pack.id, pending: old) })
        XCTAssertTrue(try database.hashesPending(of: pack.id))
        XCTAssertFalse(try recorded(pack).isEmpty, "the last hash is kept")
        PackHasher.settle(database)
        XCTAssertFalse(try database.hashesPending(of: pack.id))
        XCTAssertEqual(try recorded(pack).mapValues(\.hash), try hashes(pack, rule: .current))
    }

    /// A hash recorded under rule 1 (as PackFS recorded them before rules were numbered):
    /// `verify` compares it under rule 1 and finds the pack sound; the hasher confirms it and
    /// records the rule-2 hash.
    func testARuleOneHashIsConfirmedThenRecomputed() throws {
        let pack = try downloadedPack()
        manager.stop()
        let old = try hashes(pack, rule: .deflatedAgain)
        try database.write { batch in
            try batch.recordHashes(old.map { RecordedHash(urlTemplate: $0.key, pixelRatio: 1, hash: $0.value, tiles: 0, recorded: 1, rule: 1) }, of: pack.id)
        }
        let report = try PackVerification(database: database, pack: pack).run()
        XCTAssertTrue(report.isSound, "\(report.problems)")
        XCTAssertEqual(Set(report.sources.compactMap(\.recordedRule)), [1])
        PackHasher.settle(database)
        let now = try recorded(pack)
        XCTAssertEqual(now.mapValues(\.hash), try hashes(pack, rule: .sameStream))
        XCTAssertEqual(Set(now.values.map(\.rule)), [2])
        XCTAssertTrue(try PackVerification(database: database, pack: pack).run().isSound)
    }

    /// A rule-1 hash the tiles do not give (a damaged pack) is kept, and `verify` reports it.
    func testAWrongRuleOneHashIsKeptAndReported() throws {
        let pack = try downloadedPack()
        manager.stop()
        try database.write { batch in
            try batch.recordHashes(try hashes(pack, rule: .deflatedAgain).map {
                RecordedHash(urlTemplate: $0.key, pixelRatio: 1, hash: "0123456789ABCDEF0123456789ABCDEF", tiles: 0, recorded: 1, rule: 1)
            }, of: pack.id)
        }
        PackHasher.settle(database)
        XCTAssertEqual(Set(try recorded(pack).values.map(\.rule)), [1])
        let report = try PackVerification(database: database, pack: pack).run()
        XCTAssertFalse(report.isSound)
        XCTAssertTrue(report.problems.contains { $0.contains("under export rule 1, recorded 0123456789ABCDEF0123456789ABCDEF") },
                      "\(report.problems)")
    }
}

/// The export rule's bytes for one tile, checked against zlib and an independent gzip reader's view.
final class ExportRuleTests: XCTestCase {
    func withStored<T>(_ stored: Data, compressed: Bool, _ body: (StoredBytes) throws -> T) rethrows -> T {
        try stored.withUnsafeBytes { try body(StoredBytes(bytes: $0, compressed: compressed)) }
    }

    /// A zlib value around the deflate stream `gzip -1` makes (another compressor than PackFS's).
    func zlibByGzipOne(_ content: Data) throws -> Data {
        let member = try Command.gzip(content, ["-1", "-n"])
        var a: UInt32 = 1, b: UInt32 = 0
        for byte in content {
            a = (a + UInt32(byte)) % 65521
            b = (b + a) % 65521
        }
        let adler = b << 16 | a
        return Data([0x78, 0x01]) + member.dropFirst(10).dropLast(8)
            + Data([UInt8(adler >> 24), UInt8(adler >> 16 & 0xFF), UInt8(adler >> 8 & 0xFF), UInt8(adler & 0xFF)])
    }

    func fixtureTile() throws -> Data {
        try Data(contentsOf: ProjectPaths.world.appendingPathComponent("tiles/helsinki/14/9326/4741.pbf"))
    }

    /// A zlib value made by another compressor (level 1, as a server's gzip) keeps its stream:
    /// the export is header + the same bytes + CRC-32 + size, and inflates to the content.
    func testAZlibStoredTileKeepsItsOwnStream() throws {
        let content = try fixtureTile()
        let stored = try zlibByGzipOne(content)
        let exported = try withStored(stored, compressed: true) {
            try MBTilesTiles.withExportBytes($0, vector: true, inflater: Inflater()) { $0.data }
        }
        XCTAssertEqual(Array(exported.prefix(10)), [0x1F, 0x8B, 8, 0, 0, 0, 0, 0, 0, 0xFF])
        XCTAssertEqual(exported.dropFirst(10).dropLast(8), stored.dropFirst(2).dropLast(4), "the same deflate stream")
        XCTAssertEqual(try Zlib.decompress(exported), content)
        XCTAssertNotEqual(exported, try Zlib.gzip(content), "no second deflate at zlib's default level")
    }

    /// For a tile zlib compressed at its default level (PackFS's own imports), rule 2 gives the
    /// bytes rule 1 gave: hashes of such packs did not change.
    func testRuleTwoEqualsRuleOneForZlibsDefaultLevel() throws {
        let content = try fixtureTile()
        let stored = try Zlib.compress(content)
        for rule in ExportRule.allCases {
            let exported = try withStored(stored, compressed: true) {
                try MBTilesTiles.withExportBytes($0, vector: true, rule: rule, inflater: Inflater()) { $0.data }
            }
            XCTAssertEqual(exported, try Zlib.gzip(content), "\(rule)")
        }
    }

    /// Gzipped bytes stored as they are, raw vector tiles, images, damage.
    func testTheOtherForms() throws {
        let content = try fixtureTile()
        let gzipped = try Zlib.gzip(content)
        let inflater = Inflater()
        XCTAssertEqual(try withStored(gzipped, compressed: false) { try MBTilesTiles.withExportBytes($0, vector: true, inflater: inflater) { $0.data } }, gzipped)
        XCTAssertEqual(try withStored(content, compressed: false) { try MBTilesTiles.withExportBytes($0, vector: true, inflater: inflater) { $0.data } }, gzipped)
        let png = Data([0x89, 0x50, 0x4E, 0x47] + Array(repeating: 7, count: 200))
        XCTAssertEqual(try withStored(try Zlib.compress(png), compressed: true) { try MBTilesTiles.withExportBytes($0, vector: false, inflater: inflater) { $0.data } }, png)
        var damaged = try Zlib.compress(content)
        damaged[damaged.count / 2] ^= 0xFF
        XCTAssertThrowsError(try withStored(damaged, compressed: true) { try MBTilesTiles.withExportBytes($0, vector: true, inflater: inflater) { $0.data } })
    }
}
