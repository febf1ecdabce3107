// Interchange: packs in and out of PackFS through the formats the map world uses.
//
// - Export: a pack's tiled sources to MBTiles 1.3 (`MBTiles/`) or PMTiles v3 (`PMTiles/`), one
//   file per source; or the whole pack to a directory a static web server serves (`Directory/`).
// - Import: another offline database merged as MapLibre's `mergeOfflineRegions` does (`Merge/`);
//   an MBTiles or PMTiles file as a pack of its own (in the format's folder).
//
// It reads packs through StyleModel's `PackStyle` (the same model of sources the mount shows) and
// writes them through PackStore's transactions. No FUSE, no network.
import Foundation
import PackStore

/// What went wrong moving a pack in or out, in words that name the file and the cause.
public struct InterchangeError: Error, CustomStringConvertible, Equatable {
    public var description: String
    public init(_ description: String) { self.description = description }
}
