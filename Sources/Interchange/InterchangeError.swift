import Basics
import PackStore

/// What went wrong moving a pack in or out; each case names the file or pack, so its `description` is enough to act on.
public enum InterchangeError: Error, Equatable, Sendable, CustomStringConvertible {
    // Files read.
    /// No file at the path given (a merge's side file).
    case noSuchFile(String)
    /// A file that cannot be opened or read; `reason` in the system's or SQLite's words.
    case cannotRead(String, reason: String?)
    /// A file that is not what it was taken for (`format`: "an MBTiles file", "an offline database").
    case notInFormat(String, format: String, reason: String)
    /// A damaged file, or one in a version PackFS does not read; `detail` names the part (a section, a tile row).
    case damaged(String, detail: String)
    /// A file whose tiles a pack cannot show, or which is compressed in a way PackFS does not read.
    case unsupported(String, detail: String)
    /// A side database PackStore refused, in its words, naming the user's file (never the copy opened).
    case sideRefused(String, reason: String)
    /// A file without a single tile.
    case noTiles(String)
    /// An MBTiles file whose `agg_tiles_hash` row disagrees with its tiles.
    case hashMismatch(file: String, stored: String, computed: String)
    /// Tile `tile` (z/x/y as the file numbers it) outside `grid`; `file` is nil for a tile given to a writer.
    case tileOutsideGrid(file: String?, tile: String, grid: String)
    /// A patch (martin's metadata `agg_tiles_hash_before_apply` or `_after_apply`) given where a tile set is wanted.
    case patchGiven(String)
    /// The two sides of a diff hold different kinds of tiles (their MBTiles `format`).
    case formatsDiffer(old: String, oldFormat: String, new: String, newFormat: String)
    /// A merge past a tile cap (MapLibre's Mapbox limit when `mapbox`, else `--max-tiles`); nothing was merged.
    case tileLimit(file: String, adding: Int, stored: Int, limit: Int, mapbox: Bool)

    // Archives written (bytes read that break the PMTiles spec are `damaged`).
    /// What an archive cannot hold: a tile given twice, a tile of 0 bytes or over 4 GiB, a leaf directory over 4 GiB.
    case unwritablePMTiles(String)

    // Packs exported.
    /// A pack without what the export writes (`lacking`: "tiles", "style and no tiles yet"...).
    case nothingToExport(pack: String, lacking: String)
    /// `--source` names no tiled source of the pack; `known` are those it has.
    case noSuchSource(pack: String, source: String, known: [String])
    /// A pack with several tiled sources where one is wanted and none was named (`--source`).
    case severalSources(pack: String, known: [String])
    /// Stored bytes of the pack (`what`: a tile, a resource's URL) that do not decode.
    case undecodable(what: String, pack: String, reason: String)
    case invalidBaseURL(String, problem: String)

    // Files and directories written.
    /// A directory export's target that cannot be one (`/`, `..`, a missing parent).
    case invalidDestination(String, reason: String)
    /// A directory export's target that exists: a file (`entries` nil) or a non-empty directory.
    case destinationTaken(String, entries: Int?)
    /// `action` (create, write, close, copy) failed on a file; `reason` in the system's words.
    case cannotWrite(String, action: String, reason: String?)
    /// A finished export that could not be renamed into place.
    case cannotMove(String, to: String, reason: String)

    /// Redacted (`Redaction`): a patch's URL may carry a user and password or a token.
    public var description: String { Redaction.text(plainDescription) }

    private var plainDescription: String {
        switch self {
        case .noSuchFile(let path): return "\(path): no such file"
        case .cannotRead(let path, let reason): return "cannot read \(path)" + Self.cause(reason)
        case .notInFormat(let path, let format, let reason): return "\(path) is not \(format): \(reason)"
        case .damaged(let file, let detail), .unsupported(let file, let detail): return "\(file): \(detail)"
        case .sideRefused(_, let reason): return reason
        case .noTiles(let file): return "\(file) holds no tiles"
        case .hashMismatch(let file, let stored, let computed):
            return "\(file): its metadata says agg_tiles_hash \(stored) but its tiles hash to \(computed)"
                + " (the file changed after its hash was written, or is damaged); nothing imported"
                + " (--accept-hash-mismatch imports it anyway)"
        case .tileOutsideGrid(let file, let tile, let grid):
            return (file.map { "\($0): " } ?? "") + "tile \(tile) lies outside \(grid)"
        case .patchGiven(let file):
            return "\(file) is a patch (its metadata has agg_tiles_hash_before_apply or _after_apply), not a tile set"
        case .formatsDiffer(let old, let oldFormat, let new, let newFormat):
            return "\(old) holds \(oldFormat) tiles and \(new) \(newFormat) tiles: a diff is between two versions of one tile set"
        case .tileLimit(let file, let adding, let stored, let limit, let mapbox):
            let cap = mapbox ? "the Mapbox tile limit is \(limit)" : "the tile limit is \(limit) (--max-tiles)"
            return "\(file): merging would add \(adding) \(mapbox ? "mapbox:// tiles" : "tiles") to the \(stored)"
                + " the database holds; \(cap); nothing was merged"
        case .unwritablePMTiles(let detail): return detail
        case .nothingToExport(let pack, let lacking): return "pack \"\(pack)\" holds no \(lacking): nothing to export"
        case .noSuchSource(let pack, let source, let known):
            let sources = known.isEmpty ? "none" : known.map { "\"\($0)\"" }.joined(separator: ", ")
            return "pack \"\(pack)\" has no tiled source \"\(source)\" (its tiled sources: \(sources))"
        case .severalSources(let pack, let known):
            let sources = known.map { "\"\($0)\"" }.joined(separator: ", ")
            return "pack \"\(pack)\" has several tiled sources (\(sources)): name one with --source"
        case .undecodable(let what, let pack, let reason): return "\(what) in pack \"\(pack)\" cannot be decoded: \(reason)"
        case .invalidBaseURL(let url, let problem): return "--base-url \(url): \(problem)"
        case .invalidDestination(let path, let reason): return "\(path): \(reason)"
        case .destinationTaken(let path, nil): return "\(path) exists and is not a directory"
        case .destinationTaken(let path, let entries?):
            return "\(path) is not empty (\(entries) entries): export to a new or empty directory"
        case .cannotWrite(let path, let action, let reason): return "cannot \(action) \(path)" + Self.cause(reason)
        case .cannotMove(let path, let target, let reason): return "cannot move \(path) to \(target): \(reason)"
        }
    }

    private static func cause(_ reason: String?) -> String { reason.map { ": \($0)" } ?? "" }
}
