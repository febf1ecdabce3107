import Basics
import FoundationEssentials
import PackStore
import StyleModel

/// A pack's tiled source as a side of a diff: exactly what `packfs export DB NAME OUT.mbtiles [--source ID]` writes, by
/// the same rules (`TiledSourceFiles`, `MBTilesTiles`, `MBTilesMetadata`): a pack and its export give one patch.
public struct PackDiffSide: DiffSide {
    public let label: String
    public let format: String?
    private let database: OfflineDatabase
    private let pack: Pack
    private let style: PackStyle
    private let target: TiledSourceFiles.Target

    /// Opens the database read-only (it may be mounted) and finds `source`, else the pack's one tiled source.
    public init(pack name: String, database databasePath: String, source: String?) throws {
        let database = try OfflineDatabase.open(path: databasePath, mode: .readOnly)
        do {
            let pack = try database.pack(named: name)
            // The export's choice of source; a pack without a tiled source has no tiles to diff.
            let style = try PackStyle.load(pack, from: database)
            let targets = try TiledSourceFiles.tiled(in: style, pack: pack, only: source)
            guard let style, targets.count == 1, let target = targets.first else {
                throw targets.isEmpty
                    ? InterchangeError.noTiles("pack \"\(pack.name)\"")
                    : InterchangeError.severalSources(pack: pack.name, known: targets.map(\.source.id))
            }
            (self.database, self.pack, self.style, self.target) = (database, pack, style, target)
        } catch {
            try? database.close()
            throw error
        }
        label = "pack \"\(self.pack.name)\" of \(databasePath)"
        format = MBTilesMetadata.format(of: target)
    }

    public func forEachTile(_ body: (DiffTile) throws -> Void) throws {
        try target.forEachMBTilesTile(in: database, pack: pack.name) { z, column, tmsRow, data in
            try body(DiffTile(place: TilePlace(z: z, column: column, row: tmsRow), data: data))
        }
    }

    /// The export's rows for these tiles; a source without a tile has no export, so no side to diff.
    public func metadata(after walk: SideWalk) throws -> [String: String] {
        guard let zooms = walk.zooms else { throw InterchangeError.noTiles(label) }
        let rows = MBTilesMetadata.rows(for: target, of: pack, style: style, zooms: zooms, hash: walk.hash)
        return Dictionary(rows.map { ($0.name, $0.value) }, uniquingKeysWith: { first, _ in first })
    }

    public func close() { try? database.close() }
}
