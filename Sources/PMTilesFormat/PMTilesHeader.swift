import Basics
import FoundationEssentials

/// The 127-byte header of every PMTiles v3 archive (spec chapter 3): the sections, compressions, tile type and extent.
///
/// Byte layout (integers little-endian): 0 magic `PMTiles`, 7 version 3; from byte 8 eleven 64-bit unsigned fields:
/// root directory offset and length, metadata offset and length, leaf directories offset and length, tile data offset
/// and length, addressed tiles, tile entries, tile contents; 96 clustered, 97 internal compression, 98 tile
/// compression, 99 tile type, 100 min zoom, 101 max zoom, 102 min position, 110 max position, 118 center zoom, 119
/// center position. A position is longitude then latitude, each a 32-bit signed integer of degrees times 10,000,000.
public struct PMTilesHeader: Equatable, Sendable {
    public enum Compression: UInt8, Sendable {
        case unknown = 0, none, gzip, brotli, zstd
    }

    public enum TileType: UInt8, Sendable {
        case unknown = 0, mvt, png, jpeg, webp, avif, mlt
    }

    /// A byte range of the archive.
    public struct Section: Equatable, Sendable {
        public var offset: UInt64
        public var length: UInt64
        public init(offset: UInt64 = 0, length: UInt64 = 0) {
            self.offset = offset
            self.length = length
        }
    }

    public static let size = 127
    public static let magic = Array("PMTiles".utf8)

    public var rootDirectory = Section()
    public var metadata = Section()
    public var leafDirectories = Section()
    public var tileData = Section()
    public var addressedTiles: UInt64 = 0
    public var tileEntries: UInt64 = 0
    public var tileContents: UInt64 = 0
    public var clustered = true
    public var internalCompression = Compression.gzip
    public var tileCompression = Compression.none
    public var tileType = TileType.unknown
    public var minZoom: UInt8 = 0
    public var maxZoom: UInt8 = 0
    public var minPosition = Position(longitude: -180, latitude: -85.0511)
    public var maxPosition = Position(longitude: 180, latitude: 85.0511)
    public var centerZoom: UInt8 = 0
    public var center = Position(longitude: 0, latitude: 0)

    public init() {}

    public var encoded: Data {
        var out = Data(Self.magic)
        out.append(3)
        for section in [rootDirectory, metadata, leafDirectories, tileData] {
            out.appendLittleEndian(section.offset)
            out.appendLittleEndian(section.length)
        }
        for count in [addressedTiles, tileEntries, tileContents] { out.appendLittleEndian(count) }
        out.append(contentsOf: [
            clustered ? 1 : 0, internalCompression.rawValue, tileCompression.rawValue, tileType.rawValue,
            minZoom, maxZoom,
        ])
        Self.append(minPosition, to: &out)
        Self.append(maxPosition, to: &out)
        out.append(centerZoom)
        Self.append(center, to: &out)
        return out
    }

    /// Reads a header; a wrong magic or version, or a compression or tile type the spec lacks, throws naming the field.
    public init(decoding data: Data) throws {
        let bytes = [UInt8](data.prefix(Self.size))
        guard bytes.count == Self.size else {
            throw PMTilesFormatError.malformed("\(bytes.count) bytes, shorter than the \(Self.size)-byte PMTiles header")
        }
        guard bytes.starts(with: Self.magic) else { throw PMTilesFormatError.malformed("no PMTiles magic number") }
        guard bytes[7] == 3 else {
            throw PMTilesFormatError.malformed("PMTiles version \(bytes[7]); PackFS reads version 3 (convert older archives with `pmtiles convert`)")
        }
        func u64(_ at: Int) -> UInt64 { bytes[at..<(at + 8)].reversed().reduce(0) { $0 << 8 | UInt64($1) } }
        func section(_ at: Int) -> Section { Section(offset: u64(at), length: u64(at + 8)) }
        rootDirectory = section(8)
        metadata = section(24)
        leafDirectories = section(40)
        tileData = section(56)
        (addressedTiles, tileEntries, tileContents) = (u64(72), u64(80), u64(88))
        clustered = bytes[96] == 1
        internalCompression = try Self.field(bytes, 97, "internal compression")
        tileCompression = try Self.field(bytes, 98, "tile compression")
        tileType = try Self.field(bytes, 99, "tile type")
        (minZoom, maxZoom, centerZoom) = (bytes[100], bytes[101], bytes[118])
        try checkSectionsAndZooms()
        minPosition = Self.position(bytes, at: 102)
        maxPosition = Self.position(bytes, at: 110)
        center = Self.position(bytes, at: 119)
    }

    /// The archive's sections by name, in header order.
    public var sections: [(section: Section, name: String)] {
        [(rootDirectory, "root directory"), (metadata, "metadata"), (leafDirectories, "leaf directories"), (tileData, "tile data")]
    }

    /// Every position a reader computes from the header stays below 2^63 (so sums of a section's
    /// offset and a place inside it cannot wrap), and the zooms are ones tile ids can name.
    private func checkSectionsAndZooms() throws {
        for (section, name) in sections where section.end == nil {
            throw PMTilesFormatError.malformed(
                "header: the \(name) (\(section.length) bytes at \(section.offset)) ends past 2^63 bytes")
        }
        guard maxZoom <= PMTilesTileID.deepestZoom else {
            throw PMTilesFormatError.malformed("header: max zoom \(maxZoom) is past \(PMTilesTileID.deepestZoom), the deepest PMTiles ids hold")
        }
        guard minZoom <= maxZoom else {
            throw PMTilesFormatError.malformed("header: min zoom \(minZoom) is above max zoom \(maxZoom)")
        }
    }

    /// The enum value of header byte `at`.
    private static func field<T: RawRepresentable<UInt8>>(_ bytes: [UInt8], _ at: Int, _ name: String) throws -> T {
        guard let value = T(rawValue: bytes[at]) else {
            throw PMTilesFormatError.malformed(
                "header byte \(at): \(name) \(bytes[at]) is not one the PMTiles spec defines")
        }
        return value
    }

    private static func position(_ bytes: [UInt8], at offset: Int) -> Position {
        func degrees(_ at: Int) -> Double {
            let raw = bytes[at..<(at + 4)].reversed().reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            return Double(Int32(bitPattern: raw)) / 10_000_000
        }
        return Position(longitude: degrees(offset), latitude: degrees(offset + 4))
    }

    /// Degrees times 10^7, rounded, clamped to 32 bits (no real position reaches that, and one that did must not trap).
    private static func append(_ position: Position, to out: inout Data) {
        for degrees in [position.longitude, position.latitude] {
            let scaled = (degrees * 10_000_000).rounded()
            let clamped = scaled.isNaN ? 0 : min(max(scaled, Double(Int32.min)), Double(Int32.max))
            out.appendLittleEndian(Int32(clamped))
        }
    }
}
