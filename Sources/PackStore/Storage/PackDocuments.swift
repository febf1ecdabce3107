import Basics
import FoundationEssentials

/// What a pack's style model reads of the store (StyleModel's `PackStyle`, its synthetic style and the
/// pack's coverage). `OfflineDatabase` answers; StyleModel depends on these reads only, never on the
/// store's files, connections or writes.
public protocol PackDocuments {
    func resource(url: String) throws -> StoredResource?
    func packResources(of kind: ResourceKind, in region: RegionID) throws -> [(id: ResourceID, url: String)]
    func packTileSets(of region: RegionID) throws -> [TileColumnSet]
    func sampleTile(_ set: TileColumnSet) throws -> StoredTile?
    func tileZooms(_ set: TileColumnSet) throws -> [Int]
    func coverage(of region: RegionID, tiles set: TileColumnSet?, xyzRow: (_ y: Int, _ z: Int) -> Int) throws -> Data
}

extension OfflineDatabase: PackDocuments {}
