import Basics
import FoundationEssentials
import PackStore

/// martin's `agg_tiles_hash` (mbtiles `calc_agg_tiles_hash`): MD5 over a tile set's tiles in
/// (zoom, column, TMS row) order, each fed as the decimal texts of zoom, column and row, then the
/// tile's bytes as its MBTiles file holds them, with no separators; MD5 of nothing for no tiles;
/// 32 uppercase hex digits.
public struct TileSetHash: Sendable {
    private var md5 = MD5()
    public private(set) var tiles = 0

    public init() {}

    /// Adds the next tile; the caller keeps martin's order.
    public mutating func add(z: Int, column: Int, tmsRow: Int, data: Data) {
        data.withUnsafeBytes { add(z: z, column: column, tmsRow: tmsRow, export: ExportBytes($0, content: nil)) }
    }

    /// The same from an export's pieces (`MBTilesTiles.withExportBytes`).
    public mutating func add(z: Int, column: Int, tmsRow: Int, export: ExportBytes) {
        addPlace(z: z, column: column, tmsRow: tmsRow)
        export.forEachPiece { md5.update($0) }
        tiles += 1
    }

    /// The three decimal texts go into one stack buffer, fed at once: a `String` per number would cost at every tile.
    private mutating func addPlace(z: Int, column: Int, tmsRow: Int) {
        withUnsafeTemporaryAllocation(byteCount: 3 * Self.longestDecimal, alignment: 1) { buffer in
            var end = Self.decimal(z, into: buffer, at: 0)
            end = Self.decimal(column, into: buffer, at: end)
            end = Self.decimal(tmsRow, into: buffer, at: end)
            md5.update(UnsafeRawBufferPointer(rebasing: buffer[..<end]))
        }
    }

    /// Characters of the longest decimal text of an `Int` ("-9223372036854775808").
    static let longestDecimal = 20

    /// Writes `value` as `String(value)` at `offset` (room: `longestDecimal`); returns the end.
    static func decimal(_ value: Int, into buffer: UnsafeMutableRawBufferPointer, at offset: Int) -> Int {
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)
        return withUnsafeMutableBytes(of: &digits) { reversed in
            var magnitude = value.magnitude
            var count = 0
            repeat {
                reversed[count] = UInt8(truncatingIfNeeded: magnitude % 10) &+ 0x30
                magnitude /= 10
                count += 1
            } while magnitude > 0
            var end = offset
            if value < 0 {
                buffer[end] = 0x2D
                end += 1
            }
            while count > 0 {
                count -= 1
                buffer[end] = reversed[count]
                end += 1
            }
            return end
        }
    }

    public var hex: String { md5.hex() }
}

/// A pack's hashes, one per tiled source whose tiles are known, by the export's own rule
/// (`MBTilesTiles`); recorded when a pack becomes whole (download, import, patch, refresh).
public enum PackHash {
    public struct Source: Equatable, Sendable {
        /// The source's id in the pack's style.
        public var id: String
        public var columns: TileColumnSet
        public var hash: String
        public var tiles: Int
        public var rule = ExportRule.current

        public init(id: String, columns: TileColumnSet, hash: String, tiles: Int, rule: ExportRule = .current) {
            self.id = id
            self.columns = columns
            self.hash = hash
            self.tiles = tiles
            self.rule = rule
        }

        /// As `packfs_pack_hashes` keeps it, recorded at `time`.
        public func recorded(at time: Date) -> RecordedHash {
            RecordedHash(urlTemplate: columns.urlTemplate, pixelRatio: columns.pixelRatio, hash: hash, tiles: tiles,
                         recorded: Int64(time.timeIntervalSince1970), rule: rule.rawValue)
        }
    }

    public enum Failure: Error, CustomStringConvertible {
        case undecodable(tile: String, source: String, reason: String)

        public var description: String {
            switch self {
            case .undecodable(let tile, let source, let reason):
                "tile \(tile) of source \(source) does not decode: \(reason)"
            }
        }
    }

    /// One source's hash; nil when its tiles are not known (no TileJSON stored). `database` may
    /// be a write transaction's (`StoreBatch`): the hash of what it has written so far.
    public static func compute(_ source: PackStyle.Source, in database: some StoreSnapshot,
                               rule: ExportRule = .current, pageEnd: () throws -> Void = {}) throws -> Source? {
        guard let columns = source.columns, let tiles = source.tiles else { return nil }
        let vector = tiles.type == .vector
        var hash = TileSetHash()
        let inflater = Inflater()
        try MBTilesTiles.forEachInPlace(of: source, in: database, pageEnd: pageEnd) { z, column, tmsRow, storedY, stored in
            do {
                try MBTilesTiles.withExportBytes(stored, vector: vector, rule: rule, inflater: inflater) {
                    hash.add(z: z, column: column, tmsRow: tmsRow, export: $0)
                }
            } catch {
                throw Failure.undecodable(tile: "\(z)/\(column)/\(storedY)", source: source.id, reason: "\(error)")
            }
        }
        return Source(id: source.id, columns: columns, hash: hash.hex, tiles: hash.tiles, rule: rule)
    }
}
