import Foundation
import PackStore
import StyleModel

/// Which tiled sources of a pack a file export writes, and to which files: the rule MBTiles and
/// PMTiles exports share. With `--source ID`, that source alone, to OUT as given. Otherwise every
/// tiled source whose tiles are known; one goes to OUT, several each to `OUT.<source>.<ext>` (OUT
/// without its extension, the source's directory name from the mount's `sources/`).
public enum TiledSourceFiles {
    public struct Target: Sendable {
        public var source: PackStyle.Source
        public var columns: TileColumnSet
        public var tiles: TileSource
        public var path: String
    }

    public static func targets(
        of style: PackStyle, pack: Pack, out: String, fileExtension: String, only id: String?
    ) throws -> [Target] {
        let tiled = style.sources.compactMap { source -> (PackStyle.Source, TileColumnSet, TileSource)? in
            guard let columns = source.columns, let tiles = source.tiles else { return nil }
            return (source, columns, tiles)
        }
        if let id {
            guard let (source, columns, tiles) = tiled.first(where: { $0.0.id == id }) else {
                let known = tiled.map { "\"\($0.0.id)\"" }.joined(separator: ", ")
                throw InterchangeError("pack \"\(pack.name)\" has no tiled source \"\(id)\" (its tiled sources: \(known.isEmpty ? "none" : known))")
            }
            return [Target(source: source, columns: columns, tiles: tiles, path: out)]
        }
        guard !tiled.isEmpty else { throw InterchangeError("pack \"\(pack.name)\" holds no tiled source with known tiles") }
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
