// Interchange: packs in and out of PackFS through the formats the map world uses.
//
// - Export: a pack's tiled sources to MBTiles 1.3 (`MBTiles/`) or PMTiles v3 (`PMTiles/`), one file per source; or the
//   whole pack to a directory a static web server serves (`Directory/`).
// - Import: another offline database merged as MapLibre's `mergeOfflineRegions` does (`Merge/`); an MBTiles or PMTiles
//   file as a pack of its own.
// - Diff: martin's patch between two versions of a tile set, each a file or a pack (`Diff/`, one streaming pass).
//
// Packs are read through StyleModel's `PackStyle` (the mount's model of sources) and written through PackStore's
// transactions. No FUSE, no network.
//
// An export is made from the database, the pack and its options, then written out of sight until complete
// (`ExportPlacement`). An import is made from the file's path, which reads and checks the file before any database is
// opened, then written in one transaction. Errors: `InterchangeError`, a case per cause.
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

