import FoundationEssentials

/// `packfs diff OLD NEW OUT`: the patch that turns tile set OLD into NEW in martin's format (his `mbtiles diff`): a
/// flat MBTiles (`MBTilesWriter`) of the places where the two differ, NEW's bytes for changed and added tiles, NULL
/// `tile_data` for deleted ones, with `PatchMetadata`. Each side is a file (`FileDiffSide`) or a pack's tiled source as
/// its export holds it (`PackDiffSide`). One pass in martin's order (`TileMerge`), each side read on a thread of its
/// own through a bounded hand-off (`TileStream`): memory does not grow with the tile count. OUT is never replaced: the
/// patch is written under a hidden name in one transaction and moved to OUT when complete, so a failure leaves no file.
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

    /// OUT is a new file in an existing directory: checked before anything is read, and again by the final move.
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
