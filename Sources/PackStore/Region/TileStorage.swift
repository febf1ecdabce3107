import Basics
import FoundationEssentials

/// How a pack stores the tiles it downloads (the region file's `tile_storage`, docs/mount.md):
/// - `compressed` (the default): MapLibre's rule, zlib when strictly smaller (`StoredData.encoding`);
/// - `inflated`: the bytes a renderer reads (`ServedTile`), `compressed = 0`, so a cold read is a copy
///   with no inflate, at about twice the disk for vector tiles (raster tiles do not deflate anyway).
///
/// Both forms are MapLibre's format and serve the same bytes, so a tile row shared by two packs keeps
/// whichever form was written last. The choice is kept in the pack's description (`PackDescription`),
/// not its definition: MapLibre's definition has no such key. It applies to tiles as they are stored:
/// changing it stores new and changed tiles in the new form and rewrites none already stored.
public enum TileStorage: String, Equatable, Sendable, CaseIterable {
    case compressed
    case inflated

    public static let key = "tile_storage"

    /// The row to store for tile content fetched as `content` (transfer encoding removed) whose
    /// default stored form is `received`, and its served size for `packfs_tile_sizes` (TileSizes.swift).
    public func stored(content: Data, received: StoredData) -> (data: StoredData, size: Int?) {
        guard self == .inflated, let served = try? ServedTile.content(decoded: content) else {
            return (received, StoredData.servedSize(of: content))
        }
        // Stored as served: its length is its size, nothing to record.
        return (StoredData(bytes: served, compressed: false), nil)
    }

    /// The value as a region file spells it; nil when `value` is absent (the default).
    static func parse(_ value: JSONValue?, field: String) throws -> TileStorage? {
        guard let value else { return nil }
        let choices = allCases.map { "\"\($0.rawValue)\"" }.joined(separator: " or ")
        guard let text = value.string, let storage = TileStorage(rawValue: text) else {
            let given = value.string.map { "\"\($0)\"" } ?? RegionFileReader.kind(of: value)
            throw StoreError.invalidDefinition(field: field, reason: "must be \(choices), not \(given)")
        }
        return storage
    }

    /// The choice a pack's description records; absent (every pack an app or an older PackFS made) is `compressed`.
    static func recorded(in description: Data?) -> TileStorage {
        guard let text = description.flatMap(JSONValue.parse)?[key]?.string else { return .compressed }
        return TileStorage(rawValue: text) ?? .compressed
    }
}
