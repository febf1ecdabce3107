import Basics
import CDeflate
import CSQLite
import FoundationEssentials
import SQLiteDB

#if canImport(Glibc)
    import Glibc
#endif

/// What a renderer reads of a stored tile: the stored framing undone (`StoredData.decoded`), then a gzip
/// payload inflated once more (an MBTiles vector tile, a pre-gzipped tile sent without Content-Encoding),
/// since MapLibre Native inflates what it fetches over HTTP but not what it reads from `file://`. The one
/// rule for the mount's reads (`OfflineDatabase.servedTile`), exports and recorded sizes (`TileSizes`).
public enum ServedTile {
    public static func content(decoded: Data?) throws -> Data? {
        guard let decoded else { return nil }
        return Zlib.isGzip(decoded) ? try Zlib.decompress(decoded) : decoded
    }

    public static func content(of data: StoredData) throws -> Data? {
        try content(decoded: try data.decoded())
    }
}

/// Which stored tile: by its key (a lookup by name) or by its row (a read by inode).
public enum TileSelector: Sendable {
    case key(TileKey)
    case row(TileID)
}

extension OfflineDatabase {
    /// The row and served bytes of a tile with content that `region` holds, or nil: the one read of a tile's bytes, for
    /// a lookup and a read alike. `wantsContent` is asked with the row first: false (size known) leaves it undecoded.
    public func servedTile(_ tile: TileSelector, in region: RegionID, wantsContent: (TileID) -> Bool = { _ in true })
        throws -> (id: TileID, content: Data?)?
    {
        func read(_ row: StatementRow) throws -> (id: TileID, content: Data?) {
            let id = TileID(rawValue: row.int64(0))
            return (id, wantsContent(id) ? try row.served(1, compressed: row.bool(2)) : nil)
        }
        // One statement, membership and bytes together: it needs no snapshot of its own.
        return try readAlone { db in
            switch tile {
            case .key(let key):
                return try db.cachedStatement(TreeSQL.tileDataByKey).firstRow(binding: { Self.bind(key, region, to: $0) }, read)
            case .row(let id):
                return try db.cachedStatement(TreeSQL.tileServedByID).firstRow(arguments: [id.rawValue, region.rawValue], read)
            }
        }
    }

    /// `TreeSQL.tileDataByKey`'s parameters, in its order (`arguments(_:_:)`'s), set on the statement itself.
    static func bind(_ key: TileKey, _ region: RegionID, to statement: SQLiteStatement) -> CInt {
        var code = key.urlTemplate.withCString { sqlite3_bind_text(statement, 1, $0, -1, packfs_sqlite_transient()) }
        if code == SQLITE_OK { code = sqlite3_bind_int64(statement, 2, Int64(key.pixelRatio)) }
        if code == SQLITE_OK { code = sqlite3_bind_int64(statement, 3, Int64(key.z)) }
        if code == SQLITE_OK { code = sqlite3_bind_int64(statement, 4, Int64(key.x)) }
        if code == SQLITE_OK { code = sqlite3_bind_int64(statement, 5, Int64(key.y)) }
        if code == SQLITE_OK { code = sqlite3_bind_int64(statement, 6, region.rawValue) }
        return code
    }
}

extension StatementRow {
    /// A stored tile as served (`ServedTile`), inflated straight from SQLite's buffer; NULL is nil.
    func served(_ column: Int, compressed: Bool) throws -> Data? {
        try withUnsafeBlob(at: column) { stored -> Data? in
            guard let stored else { return nil }
            guard compressed else { return Zlib.isGzip(stored) ? try ServedTile.inflate(stored) : Data(stored) }
            let decoded = stored.isEmpty ? try Zlib.decompress(Data()) : try ServedTile.inflate(stored)
            guard Zlib.isGzip(decoded) else { return decoded }
            return try decoded.withUnsafeBytes { try ServedTile.inflate($0) }
        }
    }
}

extension ServedTile {
    /// `bytes` inflated (zlib or gzip, by its header) by the thread's decompressor, else by zlib.
    static func inflate(_ bytes: UnsafeRawBufferPointer) throws -> Data {
        if let data = WholeInflate.decompress(bytes, limit: Zlib.maxInflatedBytes, using: threadDecompressor) { return data }
        return try Zlib.decompress(Data(bytes))
    }

    /// libdeflate's state for the calling thread, made on its first inflate and freed when the thread
    /// ends, so no decompressor is made per tile (nil if it could not be made: each inflate makes its own).
    private static var threadDecompressor: OpaquePointer? {
        if let made = decompressors.current { return made.state }
        guard let made = Decompressor(), decompressors.set(made) else { return nil }
        return made.state
    }

    private static let decompressors = OwnedThreadSlot<Decompressor>()

    private final class Decompressor {
        let state: OpaquePointer

        init?() {
            guard let state = libdeflate_alloc_decompressor() else { return nil }
            self.state = state
        }

        deinit { libdeflate_free_decompressor(state) }
    }
}
