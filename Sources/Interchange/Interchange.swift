// Interchange: packs in and out of PackFS through the formats the map world uses.
//
// - Export: a pack's tiled sources to MBTiles 1.3 (`MBTiles/`) or PMTiles v3 (`PMTiles/`), one
//   file per source; or the whole pack to a directory a static web server serves (`Directory/`).
// - Import: another offline database merged as MapLibre's `mergeOfflineRegions` does (`Merge/`);
//   an MBTiles or PMTiles file as a pack of its own (in the format's folder).
// - Diff: the patch between two versions of a tile set, each an MBTiles file or a pack's export,
//   in martin's format (`Diff/`: one streaming pass, each side read on a thread of its own).
//
// It reads packs through StyleModel's `PackStyle` (the same model of sources the mount shows) and
// writes them through PackStore's transactions. No FUSE, no network.
//
// One shape. Each export (`MBTilesExport`, `PMTilesExport`, `DirectoryExport`) is made from the
// database, the pack and its options, then written to a path: out of sight until complete
// (`ExportPlacement`), so a failed export leaves nothing under the name asked for. Each import
// (`MBTilesImport`, `PMTilesImport`, `DatabaseMerge`) is made from the file's path, which reads
// and checks the file, so a file that cannot be imported is refused before any database is
// opened; then written into a database in one transaction. Both return a summary `packfs` prints
// as text or JSON.
//
// Errors. One enum, `InterchangeError`: a case per cause, naming the file or the pack.
import Basics
import FoundationEssentials
import PackStore

/// An export of one pack, written once.
public protocol PackExport {
    associatedtype Summary: InterchangeSummary
    /// Writes the export at `path` and says what it wrote.
    func write(to path: String) throws -> Summary
}

/// An import of one file (read and checked when the value was made), written once.
public protocol PackImport {
    associatedtype Summary: InterchangeSummary
    /// Stores the file in `database`, in one transaction, and says what it stored.
    func write(into database: OfflineDatabase) throws -> Summary
}

/// What an export or an import did, as `packfs` prints it.
public protocol InterchangeSummary: Sendable {
    /// Lines for a person.
    var lines: [String] { get }
    /// The same for `--json`.
    var json: JSONValue { get }
}

/// What a file export (MBTiles, PMTiles) wrote: a file per tiled source that had tiles.
public struct FileExportSummary<File: InterchangeSummary & Equatable>: InterchangeSummary, Equatable {
    public var files: [File]

    public var lines: [String] { files.flatMap(\.lines) }
    public var json: JSONValue { .object(["files": .array(files.map(\.json))]) }
}

