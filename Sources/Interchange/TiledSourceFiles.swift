import FoundationEssentials
import PackStore
import StyleModel

/// Which tiled sources of a pack a file export writes, and to which files: the rule MBTiles and
/// PMTiles exports share. With `--source ID`, that source alone, to OUT as given. Otherwise every
/// tiled source whose tiles are known; one goes to OUT, several each to `OUT.<source>.<ext>` (OUT
/// without its extension, the source's directory name from the mount's `sources/`).
struct TiledSourceFiles {
    let database: OfflineDatabase
    let pack: Pack
    /// The one tiled source to write (its id in the pack's style); nil: every one.
    let only: String?

    /// Writes a file per target with `write`, which returns nil when its source had no tile to
    /// write (it then leaves no file). A pack without a tile written at all is an error.
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

    struct Target: Sendable {
        var source: PackStyle.Source
        var columns: TileColumnSet
        var tiles: TileSource
        var path: String
    }

    static func targets(
        of style: PackStyle, pack: Pack, out: String, fileExtension: String, only id: String?
    ) throws -> [Target] {
        let tiled = style.sources.compactMap { source -> (PackStyle.Source, TileColumnSet, TileSource)? in
            guard let columns = source.columns, let tiles = source.tiles else { return nil }
            return (source, columns, tiles)
        }
        if let id {
            guard let (source, columns, tiles) = tiled.first(where: { $0.0.id == id }) else {
                throw InterchangeError.noSuchSource(pack: pack.name, source: id, known: tiled.map(\.0.id))
            }
            return [Target(source: source, columns: columns, tiles: tiles, path: out)]
        }
        guard !tiled.isEmpty else {
            throw InterchangeError.nothingToExport(pack: pack.name, lacking: "tiled source with known tiles")
        }
        if tiled.count == 1, let (source, columns, tiles) = tiled.first {
            return [Target(source: source, columns: columns, tiles: tiles, path: out)]
        }
        let suffix = "." + fileExtension
        let stem = out.lowercased().hasSuffix(suffix) ? String(out.dropLast(suffix.count)) : out
        return tiled.map { source, columns, tiles in
            Target(source: source, columns: columns, tiles: tiles, path: "\(stem).\(source.declared.directoryName)\(suffix)")
        }
    }
}
