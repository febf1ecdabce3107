import Basics
import FoundationEssentials
import PackStore
import StyleModel

/// `packfs patch DB NAME PATCH` and `cp PATCH packs/NAME.patch`: martin's patch applied to a tiled source of a pack,
/// in one transaction that
/// 1. finds the source whose tiles hash to `before_apply` (`source`, else each tiled source in style order);
/// 2. writes each row: new bytes into the tile's row (kept ids: the mount's inodes are row ids), linked to the pack
///    when new to it; a NULL row makes the tile "no content", as a 404 would, so the plan stays whole;
/// 3. hashes the source again on the transaction's own connection, rolling back unless it gives `after_apply`;
/// 4. records the new hash and drops the recorded hashes of other packs sharing a changed row.
/// A kill at any moment leaves the pack's hash one of the patch's two; mount readers are never held (WAL mode). Tiles
/// are stored as the MBTiles import stores them, so the pack's hash is martin's for the patched file. Cache headers are
/// dropped: a later refresh must not revalidate new bytes with an old ETag.
public struct PackPatch {
    typealias Target = TiledSourceFiles.Target

    public let database: OfflineDatabase
    public let pack: Pack
    /// The tiled source to patch (its id in the pack's style); nil: the one the patch fits.
    public let source: String?

    public init(database: OfflineDatabase, pack: Pack, source: String? = nil) {
        self.database = database
        self.pack = pack
        self.source = source
    }

    public func apply(_ patch: PatchFile) throws -> PatchSummary {
        guard try database.status(of: pack.id).state != .active else { throw PatchError.packBusy(pack.name) }
        let candidates = try TiledSourceFiles.tiled(in: PackStyle.load(pack, from: database), pack: pack, only: source)
        return try database.write { batch in
            let target = try base(among: candidates, for: patch, batch)
            var changes = TileChanges(columns: target.columns, source: target.source.id)
            try write(patch, into: target, batch, &changes)
            guard let after = try PackHash.compute(target.source, in: batch) else {
                throw PatchError.wrongResult(pack: pack.name, expected: patch.after, computed: "nothing")
            }
            guard after.hash == patch.after else {
                throw PatchError.wrongResult(pack: pack.name, expected: patch.after, computed: after.hash)
            }
            try batch.replaceRecordedHash(after.recorded(at: Date()), of: pack.id)
            try batch.renewHashRequest(of: pack.id)
            try batch.forgetRecordedHashes(of: changes.otherPacks)
            return PatchSummary(pack: pack.name, patch: patch.name, before: patch.before, after: after.hash,
                                tiles: after.tiles, changes: changes)
        }
    }

    /// The candidate whose tiles hash to `before_apply` now, on the write's own connection.
    private func base(among candidates: [Target], for patch: PatchFile, _ batch: StoreBatch) throws -> Target {
        var found: [PatchError.SourceHash] = []
        var seen = Set<TileColumnSet>()
        for candidate in candidates where seen.insert(candidate.columns).inserted {
            guard let hash = try PackHash.compute(candidate.source, in: batch) else { continue }
            if hash.hash == patch.before { return candidate }
            found.append(PatchError.SourceHash(source: candidate.source.id, hash: hash.hash))
        }
        throw PatchError.wrongBase(pack: pack.name, expected: patch.before, found: found)
    }

    private func write(_ patch: PatchFile, into target: Target, _ batch: StoreBatch, _ changes: inout TileChanges) throws {
        try patch.forEachTile { z, column, tmsRow, data in
            guard let y = MBTilesImport.xyzRow(z: z, tmsRow: tmsRow), (0..<(1 << z)).contains(column) else {
                throw PatchError.damaged(patch.name, detail: "tile \(z)/\(column)/\(tmsRow) (TMS row) lies outside the tile grid")
            }
            let storedY = target.source.row(y, z: z)
            let key = TileKey(urlTemplate: target.columns.urlTemplate, pixelRatio: target.columns.pixelRatio, z: z, x: column, y: storedY)
            let place = TileChanges.Place(z: Int32(z), x: Int32(column), y: Int32(storedY))
            if let data {
                try put(data, at: key, place, batch, &changes)
            } else {
                try delete(key, place, batch, &changes)
            }
        }
    }

    private func put(_ data: Data, at key: TileKey, _ place: TileChanges.Place, _ batch: StoreBatch,
                     _ changes: inout TileChanges) throws {
        let existing = try batch.storedTile(key)
        let held = try existing.map { try batch.holds(pack.id, tile: $0.id) } ?? false
        let shown = held && existing?.data.bytes != nil
        let id = try batch.putTile(key, data: .encoding(data), headers: CacheHeaders(), contentSize: StoredData.servedSize(of: data))
        if !held { try batch.link(tile: id, to: pack.id) }
        if shown { changes.changed.append(id) } else { changes.added.append(place) }
        if existing != nil { try noteOtherHolders(of: id, &changes, batch) }
    }

    private func delete(_ key: TileKey, _ place: TileChanges.Place, _ batch: StoreBatch, _ changes: inout TileChanges) throws {
        guard let existing = try batch.storedTile(key), existing.data.bytes != nil, try batch.holds(pack.id, tile: existing.id)
        else { return }
        try batch.putTile(key, data: .noContent, headers: CacheHeaders())
        changes.deleted.append(place)
        try noteOtherHolders(of: existing.id, &changes, batch)
    }

    private func noteOtherHolders(of tile: TileID, _ changes: inout TileChanges, _ batch: StoreBatch) throws {
        let holders = try batch.otherHolders(of: tile, besides: pack.id)
        guard !holders.isEmpty else { return }
        changes.otherPacks.formUnion(holders)
        changes.sharedRows.append(tile)
    }
}

/// What a patch did, for the command's output.
public struct PatchSummary: InterchangeSummary {
    public var pack: String
    public var patch: String
    public var before: String
    public var after: String
    /// The source's tiles after the patch.
    public var tiles: Int
    public var changes: TileChanges

    public var lines: [String] {
        let others = changes.otherPacks.isEmpty ? "" : "; \(changes.otherPacks.count) other packs share changed tiles"
        return [
            "pack \"\(pack)\" source \(changes.source): \(patch) applied: \(changes.changed.count) tiles changed,"
                + " \(changes.added.count) added, \(changes.deleted.count) deleted; agg_tiles_hash \(before) -> \(after)"
                + " (\(tiles) tiles)\(others)"
        ]
    }

    public var json: JSONValue {
        .object([
            "pack": .string(pack), "source": .string(changes.source), "patch": .string(patch),
            "before": .string(before), "after": .string(after), "tiles": .number(Double(tiles)),
            "changed": .number(Double(changes.changed.count)), "added": .number(Double(changes.added.count)),
            "deleted": .number(Double(changes.deleted.count)), "other_packs": .number(Double(changes.otherPacks.count)),
        ])
    }
}
