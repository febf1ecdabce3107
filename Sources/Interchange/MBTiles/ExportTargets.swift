import Foundation
import PackStore
import StyleModel

/// One tiled source of a pack and the file it is exported to.
struct ExportTarget {
    var source: PackStyle.Source
    var tiles: TileSource
    var columns: TileColumnSet
    var path: String
    /// The pack's primary source (the first vector source, else the first tiled one).
    var isPrimary: Bool
    /// How many tiled sources the pack has (a file's name tells them apart when several).
    var siblings: Int
}

/// Which tiled sources an export writes, and where: the only one to `OUT` itself; several to
/// `OUT.<source>.<ext>` each (the source id escaped as the mount escapes it in `sources/<id>/`);
/// `--source ID` only that one, to `OUT`. Tiled means the pack knows the source's tiles (its
/// TileJSON is stored, or its tiles are inline): GeoJSON and image sources have none.
enum ExportTargets {
    static func choose(
        in style: PackStyle, pack: String, out: String, source wanted: String?, fileExtension: String
    ) throws -> [ExportTarget] {
        let tiled = style.sources.indices.compactMap { index -> ExportTarget? in
            let source = style.sources[index]
            guard let tiles = source.tiles, let columns = source.columns else { return nil }
            return ExportTarget(
                source: source, tiles: tiles, columns: columns, path: out, isPrimary: index == style.primary,
                siblings: 0)
        }
        guard !tiled.isEmpty else { throw InterchangeError("pack \(pack) has no tiled source to export") }
        if let wanted {
            guard var target = tiled.first(where: { $0.source.id == wanted }) else {
                let ids = tiled.map { "'\($0.source.id)'" }.joined(separator: ", ")
                throw InterchangeError("pack \(pack) has no tiled source '\(wanted)'; its tiled sources: \(ids)")
            }
            target.siblings = tiled.count
            return [target]
        }
        return tiled.map { target in
            var target = target
            target.siblings = tiled.count
            if tiled.count > 1 {
                target.path = path(out, source: target.source.declared.directoryName, fileExtension: fileExtension)
            }
            return target
        }
    }

    /// `OUT.<source>.<ext>`: OUT without its `.<ext>` (any case), then the source's name.
    static func path(_ out: String, source: String, fileExtension: String) -> String {
        let suffix = "." + fileExtension
        let found = out.range(of: suffix, options: [.anchored, .backwards, .caseInsensitive])
        let stem = found.map { String(out[..<$0.lowerBound]) } ?? out
        return "\(stem).\(source)\(suffix)"
    }
}
