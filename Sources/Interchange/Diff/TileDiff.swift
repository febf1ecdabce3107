import FoundationEssentials

/// `packfs diff OLD NEW OUT`: the patch that turns tile set OLD into NEW, in martin's format (his
/// `mbtiles diff`, docs/content/mbtiles-diff.md), which `packfs patch`, martin's `mbtiles
/// apply-patch` and the plain SQL in his docs apply.
///
/// - The file: a flat MBTiles (`MBTilesWriter`: `metadata`, `tiles` with the unique index, TMS
///   rows) holding only the places where the two differ: changed and added tiles with NEW's
///   bytes, deleted tiles as rows with NULL `tile_data`. Identical sides give a patch without a
///   tile, whose own hash is MD5 of nothing, as martin's is.
/// - Its metadata: `PatchMetadata` (martin's rows, the hashes computed from the tiles).
/// - The sides: each an MBTiles file (`FileDiffSide`) or a pack's tiled source as its export
///   holds it (`PackDiffSide`); both the same kind of tiles (`format`, when both say).
/// - Memory: one pass over both sides in martin's order (`TileMerge`), each read on a thread of
///   its own through a bounded hand-off (`TileStream`); nothing grows with the tile count.
/// - OUT: never replaced. Written beside it under a hidden name in one transaction and moved to
///   OUT only when complete, so a failure (a full disk, a damaged side) leaves no file.
public struct TileDiff {
    public let old: any DiffSide
    public let new: any DiffSide

    public init(old: any DiffSide, new: any DiffSide) {
        self.old = old
        self.new = new
    }

    /// Writes the patch at `path`, which must not exist, and says what it holds.
    public func write(to path: String) throws -> DiffSummary {
        try Self.requireNewFile(path)
        try requireOneKind()
        var oldTiles = TileStream(old)
        var newTiles = TileStream(new)
        defer {
            oldTiles.stop()
            newTiles.stop()
        }
        var merge = TileMerge(old: old.label, new: new.label)
        do {
            try MBTilesWriter.write(to: path, replacing: false) { inserter in
                try merge.run(old: &oldTiles, new: &newTiles, into: &inserter)
                let (before, after) = (merge.old.walk, merge.new.walk)
                return PatchMetadata.rows(
                    old: try old.metadata(after: before), new: try new.metadata(after: after),
                    before: before.hash, after: after.hash, patch: merge.patch.hex)
            }
        } catch InterchangeError.cannotWrite(_, let action, let reason) {
            // The hidden file being written has a name no one asked for: name OUT.
            throw InterchangeError.cannotWrite(path, action: action, reason: reason)
        }
        return DiffSummary(
            path: path, changed: merge.changed, added: merge.added, deleted: merge.deleted,
            oldTiles: merge.old.walk.tiles, newTiles: merge.new.walk.tiles,
            beforeApply: merge.old.walk.hash, afterApply: merge.new.walk.hash, hash: merge.patch.hex)
    }

    /// OUT is a new file in a directory that exists: checked before anything is read (and once
    /// more by the final move, which never replaces a file).
    private static func requireNewFile(_ path: String) throws {
        var isDirectory = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) {
            let reason = isDirectory ? "it is a directory: name the patch file to write" : ExportPlacement.takenReason
            throw InterchangeError.invalidDestination(path, reason: reason)
        }
        let parent = URL(fileURLWithPath: path).deletingLastPathComponent().path
        guard FileManager.default.fileExists(atPath: parent, isDirectory: &isDirectory), isDirectory else {
            throw InterchangeError.invalidDestination(path, reason: "there is no directory \(parent)")
        }
    }

    /// Both sides hold one kind of tiles, where both say which (`jpeg` is `jpg`, `mvt` is `pbf`).
    private func requireOneKind() throws {
        let aliases = ["jpeg": "jpg", "mvt": "pbf"]
        let kinds = [old.format, new.format].map { format in format.map { aliases[$0.lowercased()] ?? $0.lowercased() } }
        guard let oldFormat = old.format, let newFormat = new.format, kinds[0] != kinds[1] else { return }
        throw InterchangeError.formatsDiffer(old: old.label, oldFormat: oldFormat, new: new.label, newFormat: newFormat)
    }
}
