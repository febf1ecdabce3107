import Basics
import FoundationEssentials
import PackStore

/// A tiled source's tiles as its MBTiles export holds them: the one rule for the export's rows and
/// for a pack's hash (`TileSetHash`), so a recorded hash is the hash of the file `packfs export` writes.
///
/// - order: zoom, column, TMS row, ascending (martin's). An XYZ source's column is walked from its
///   highest stored row down (`forEachPackTile(descendingRows:)`), a page at a time;
/// - rows: TMS; a stored tile outside the grid of zooms 0 to `deepestZoom` is left out and counted;
/// - bytes (`ExportRule`): images as a renderer reads them; vector tiles gzipped: gzip kept, a zlib
///   tile's deflate stream in a gzip member (no second deflate), raw ones by `Zlib.gzip` (deterministic).
public enum MBTilesTiles {
    /// The deepest zoom a pack's tree shows (deeper files refused at import, `maxzoom` clamped): deeper
    /// rows stop fitting the tree's inodes and the grid's arithmetic, and no renderer reads them.
    public static let deepestZoom = 24

    /// One tile: its place, and what the store holds (`mbtilesData` makes the file's bytes).
    public typealias Tile = (z: Int, column: Int, tmsRow: Int, storedY: Int, stored: StoredData)

    /// Calls `body` with each tile with content of `source` in MBTiles order, `outside` with stored
    /// tiles off the grid. Returns false, calling nothing, when the source's tiles are not known.
    @discardableResult
    public static func forEach(
        of source: PackStyle.Source, in database: some StoreSnapshot, outside: () -> Void = {},
        _ body: (Tile) throws -> Void
    ) throws -> Bool {
        guard let columns = source.columns, let tiles = source.tiles else { return false }
        try database.forEachPackTile(columns, descendingRows: tiles.scheme == .xyz) { z, x, storedY, stored in
            guard let row = tmsRow(z: z, x: x, xyzRow: source.row(storedY, z: z)) else { return outside() }
            try body((z, x, row, storedY, stored))
        }
        return true
    }

    /// `forEach`'s tiles with their bytes where the store holds them (`forEachPackTileBytes`):
    /// `body` runs inside a read transaction and must not keep `bytes`; `pageEnd` after each page.
    @discardableResult
    public static func forEachInPlace(
        of source: PackStyle.Source, in database: some StoreSnapshot, outside: () -> Void = {},
        pageEnd: () throws -> Void = {},
        _ body: (_ z: Int, _ column: Int, _ tmsRow: Int, _ storedY: Int, _ bytes: StoredBytes) throws -> Void
    ) throws -> Bool {
        guard let columns = source.columns, let tiles = source.tiles else { return false }
        try database.forEachPackTileBytes(columns, descendingRows: tiles.scheme == .xyz, pageEnd: pageEnd) { z, x, storedY, bytes in
            guard let row = tmsRow(z: z, x: x, xyzRow: source.row(storedY, z: z)) else { return outside() }
            try body(z, x, row, storedY, bytes)
        }
        return true
    }

    /// Calls `body` with the bytes MBTiles holds for a stored tile under `rule`, in place where they
    /// can be (`ExportBytes`). A compressed tile is inflated once, which checks it; throws when it
    /// does not inflate or a raw one does not deflate.
    public static func withExportBytes<T>(
        _ stored: StoredBytes, vector: Bool, rule: ExportRule = .current, inflater: Inflater,
        _ body: (ExportBytes) throws -> T
    ) throws -> T {
        if !stored.compressed {
            guard vector, !Zlib.isGzip(stored.bytes) else { return try body(ExportBytes(stored.bytes, content: nil)) }
            return try Zlib.gzip(Data(stored.bytes)).withUnsafeBytes { try body(ExportBytes($0, content: stored.bytes)) }
        }
        if rule == .sameStream, vector, let zlib = inflater.zlibStream(stored.bytes) {
            guard !Zlib.isGzip(zlib.content) else { return try body(ExportBytes(zlib.content, content: zlib.content)) }
            return try withUnsafeTemporaryAllocation(byteCount: 18, alignment: 1) { frame in
                let (head, tail) = GzipFrame.write(crc32: zlib.crc32, size: zlib.content.count, into: frame)
                let stream = UnsafeRawBufferPointer(rebasing: stored.bytes[zlib.stream])
                return try body(ExportBytes(head, stream, tail, content: zlib.content))
            }
        }
        return try inflater.withInflated(stored.bytes) { content in
            guard vector, !Zlib.isGzip(content) else { return try body(ExportBytes(content, content: content)) }
            return try Zlib.gzip(Data(content)).withUnsafeBytes { try body(ExportBytes($0, content: content)) }
        }
    }

    /// The bytes MBTiles holds for a stored tile with content, as a copy (`withExportBytes`).
    public static func data(_ stored: StoredData, vector: Bool, inflater: Inflater = Inflater()) throws -> Data {
        guard let bytes = stored.bytes else { return Data() }
        return try bytes.withUnsafeBytes { raw in
            try withExportBytes(StoredBytes(bytes: raw, compressed: stored.compressed), vector: vector, inflater: inflater) {
                $0.data
            }
        }
    }

    /// The TMS row of XYZ tile z/x/y; nil when z/x/y is not a tile of zooms 0 to `deepestZoom`
    /// (stored coordinates come from a file: checked before the flip).
    public static func tmsRow(z: Int, x: Int, xyzRow y: Int) -> Int? {
        guard (0...deepestZoom).contains(z) else { return nil }
        let size = 1 << z
        guard (0..<size).contains(x), (0..<size).contains(y) else { return nil }
        return size - 1 - y
    }
}
