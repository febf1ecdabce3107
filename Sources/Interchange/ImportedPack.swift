import Basics
import FoundationEssentials
import PackStore
import StyleModel

/// An MBTiles or PMTiles file stored as a pack of its own: one writer, so both formats give packs of one shape. Pack
/// `N` from a file of format `S` (`mbtiles`, `pmtiles`), `E` the name percent-encoded as a URL segment:
/// - tiles under `S://E/{z}/{x}/{y}`, pixel ratio 1, XYZ rows, the bytes as the file holds them (the mount inflates
///   gzipped vector tiles);
/// - a TileJSON 3.0.0 at `S://E/tiles.json` (kind 2, source) naming that template, with the file's metadata;
/// - the region: style URL `S://E` (no style is stored: the minimal style is made from that TileJSON), bounds from the
///   metadata (else the world), the tiles' zooms; description `{"name": N, "metadata": {"imported_from": ...}}`;
/// - state `complete` (nothing to download or refresh), its hash recorded once the tiles are stored.
/// All in one transaction: a damaged file found halfway leaves the database as it was.
public enum ImportedPack {
    public enum Scheme: String, Sendable {
        case mbtiles, pmtiles
    }

    /// One tile, row in XYZ numbering (an MBTiles importer flips its TMS rows first).
    public typealias Tile = (z: Int, x: Int, y: Int, data: Data)

    public struct Summary: InterchangeSummary, Equatable {
        public var pack: Pack
        /// Distinct tiles stored (a tile the file holds twice counts once).
        public var tiles: Int
        public var zooms: ClosedRange<Int>

        public var lines: [String] {
            ["pack \"\(pack.name)\": \(tiles) tiles, zooms \(zooms.lowerBound) to \(zooms.upperBound)"]
        }

        public var json: JSONValue {
            .object([
                "pack": .string(pack.name), "tiles": .number(Double(tiles)),
                "min_zoom": .number(Double(zooms.lowerBound)), "max_zoom": .number(Double(zooms.upperBound)),
            ])
        }
    }

    /// The file's name (for messages and the pack's origin) and the pack's: `name`, else the file's stem.
    struct Names {
        var file: String
        var pack: String

        init(path: String, name: String?) {
            let url = URL(fileURLWithPath: path)
            file = url.lastPathComponent
            pack = name ?? url.deletingPathExtension().lastPathComponent
        }
    }

    /// The deepest zoom a pack's tree shows; a file with deeper tiles is refused rather than stored out of sight.
    public static let deepestZoom = MBTilesTiles.deepestZoom

    /// Stores the tiles `tiles` hands to its argument as pack `name`, with `tileJSON`'s fields (the file's metadata;
    /// `tiles`, `scheme` and `tilejson` are set here). Throws, having written nothing, for a taken name, a tile off its
    /// grid, no tiles, or when `tiles` throws.
    @discardableResult
    public static func write(
        into database: OfflineDatabase, name: String, scheme: Scheme, fileName: String,
        tileJSON: JSONValue, tiles: ((Tile) throws -> Void) throws -> Void
    ) throws -> Summary {
        let urls = ImportedFiles.urls(scheme: scheme.rawValue, name: name)
        let metadata = ImportedTileJSON(tileJSON)
        let definition = RegionDefinition(
            styleURL: urls.style, area: .bounds(metadata.regionBounds), minZoom: 0, maxZoom: 0, pixelRatio: 1)
        let origin: JSONValue = .object([
            "imported_from": .object(["file": .string(fileName), "format": .string(scheme.rawValue)])
        ])
        var census = TileCensus()
        let pack = try database.createPack(name: name, definition: definition, metadata: origin) { batch, region in
            try tiles { tile in
                try check(tile, in: fileName)
                let key = TileKey(urlTemplate: urls.template, pixelRatio: 1, z: tile.z, x: tile.x, y: tile.y)
                let id = try batch.putTile(
                    key, data: .encoding(tile.data), headers: CacheHeaders(), contentSize: StoredData.servedSize(of: tile.data))
                guard try batch.link(tile: id, to: region) else { return }
                census.add(tile.z)
            }
            guard let zooms = census.zooms else { throw InterchangeError.noTiles(fileName) }
            let document = metadata.document(template: urls.template, zooms: zooms)
            let resource = try batch.putResource(
                url: urls.tileJSON, kind: .source, data: .encoding(Data(document.compactText.utf8)),
                headers: CacheHeaders())
            try batch.link(resource: resource, to: region)
            try batch.setStatus(
                PackStatus(
                    state: .complete, requiredResources: census.count + 1, requiredTiles: census.count,
                    requiredIsPrecise: true),
                of: region)
            var final = definition
            final.minZoom = Double(zooms.lowerBound)
            final.maxZoom = Double(zooms.upperBound)
            return final
        }
        guard let zooms = census.zooms else { throw InterchangeError.noTiles(fileName) }
        // Whole now: its hash is recorded (a read of the tiles just stored, after they commit).
        try PackHash.record(pack, in: database)
        return Summary(pack: pack, tiles: census.count, zooms: zooms)
    }

    /// Zoom, column and row of a tile from a file: outside data, checked before it is keyed.
    private static func check(_ tile: Tile, in fileName: String) throws {
        let place = "\(tile.z)/\(tile.x)/\(tile.y)"
        guard (0...deepestZoom).contains(tile.z) else {
            throw InterchangeError.tileOutsideGrid(
                file: fileName, tile: place, grid: "zooms 0 to \(deepestZoom), which a pack shows")
        }
        let size = 1 << tile.z
        guard (0..<size).contains(tile.x), (0..<size).contains(tile.y) else {
            throw InterchangeError.tileOutsideGrid(
                file: fileName, tile: place, grid: "zoom \(tile.z)'s grid of \(size)x\(size) tiles")
        }
    }
}
