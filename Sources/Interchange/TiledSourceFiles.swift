import Basics
import FoundationEssentials
import PackStore
import StyleModel

/// Which tiled sources of a pack a file export writes, to which files (one rule for MBTiles and PMTiles): with
/// `--source ID` that source alone, to OUT; else every tiled source whose tiles are known, one to OUT, several each to
/// `OUT.<source>.<ext>` (OUT without its extension, the source's directory name from the mount's `sources/`).
struct TiledSourceFiles {
    let database: OfflineDatabase
    let pack: Pack
    /// The one tiled source to write (its id in the pack's style); nil: every one.
    let only: String?

    /// Writes a file per target with `write` (nil: that source had no tile, so no file); no tile at all is an error.
    func export<File: InterchangeSummary & Equatable>(
        to out: String, fileExtension: String, _ write: (Target, PackStyle) throws -> File?
    ) throws -> FileExportSummary<File> {
        let nothing = InterchangeError.nothingToExport(pack: pack.name, lacking: "tiles")
        guard let style = try PackStyle.load(pack, from: database) else { throw nothing }
        let targets = try Self.targets(of: style, pack: pack, out: out, fileExtension: fileExtension, only: only)
        let files = try targets.compactMap { try write($0, style) }
        guard !files.isEmpty else { throw nothing }
        return FileExportSummary(files: files)
    }

    /// A tiled source whose tiles are known, its keys, and its file (empty for a patch's candidates).
    struct Target: Sendable {
        var source: PackStyle.Source
        var columns: TileColumnSet
        var tiles: TileSource
        var path = ""
    }

    /// The style's tiled sources; with `id`, that one alone (refused, naming the others, when it names none).
    static func tiled(in style: PackStyle?, pack: Pack, only id: String?) throws -> [Target] {
        let tiled = (style?.sources ?? []).compactMap { source -> Target? in
            guard let columns = source.columns, let tiles = source.tiles else { return nil }
            return Target(source: source, columns: columns, tiles: tiles)
        }
        guard let id else { return tiled }
        guard let named = tiled.first(where: { $0.source.id == id }) else {
            throw InterchangeError.noSuchSource(pack: pack.name, source: id, known: tiled.map(\.source.id))
        }
        return [named]
    }

    private static func targets(
        of style: PackStyle, pack: Pack, out: String, fileExtension: String, only id: String?
    ) throws -> [Target] {
        var targets = try tiled(in: style, pack: pack, only: id)
        guard !targets.isEmpty else {
            throw InterchangeError.nothingToExport(pack: pack.name, lacking: "tiled source with known tiles")
        }
        let suffix = "." + fileExtension
        let stem = out.lowercased().hasSuffix(suffix) ? String(out.dropLast(suffix.count)) : out
        for index in targets.indices {
            let source = targets[index].source.declared.directoryName
            targets[index].path = targets.count == 1 ? out : "\(stem).\(source)\(suffix)"
        }
        return targets
    }
}

extension TiledSourceFiles.Target {
    /// Each tile as the source's MBTiles export holds it, in martin's order (`MBTilesTiles`: TMS
    /// rows, vector tiles gzipped); `outside` counts stored rows whose place names no tile.
    func forEachMBTilesTile(
        in database: OfflineDatabase, pack: String, outside: () -> Void = {},
        _ body: (_ z: Int, _ column: Int, _ tmsRow: Int, _ data: Data) throws -> Void
    ) throws {
        let vector = tiles.type == .vector
        let inflater = Inflater()
        try MBTilesTiles.forEach(of: source, in: database, outside: outside) { tile in
            let data: Data
            do {
                data = try MBTilesTiles.data(tile.stored, vector: vector, inflater: inflater)
            } catch {
                let place = "tile \(tile.z)/\(tile.column)/\(tile.storedY) of source \(source.id)"
                throw InterchangeError.undecodable(what: place, pack: pack, reason: "\(error)")
            }
            try body(tile.z, tile.column, tile.tmsRow, data)
        }
    }
}
