import Basics
import FoundationEssentials

/// What a renderer reads of a stored tile: the stored framing undone (`StoredData.decoded`), then
/// a gzip payload inflated once more (an MBTiles file's vector tiles, a server's pre-gzipped
/// tiles sent without Content-Encoding): MapLibre Native inflates what it fetches over HTTP but
/// not what it reads from `file://`. The one rule for the mount's lookups and reads
/// (`OfflineDatabase.servedTile`, which applies it in place), the exports (`TileFormat.content`)
/// and the sizes the writers record (`TileSizes`).
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
    /// The row and served bytes (`ServedTile`) of a tile with content that `region` holds, or nil:
    /// the one read of a tile's bytes, for a lookup (which needs the size) and a read alike.
    /// Inflated where SQLite holds the blob, with the connection's decompressor. `wantsContent` is
    /// asked with the row first: false (the caller knows the size already) leaves it undecoded.
    public func servedTile(_ tile: TileSelector, in region: RegionID, wantsContent: (TileID) -> Bool = { _ in true })
        throws -> (id: TileID, content: Data?)?
    {
        let (query, arguments): (ReadQuery, [ReadArgument])
        switch tile {
        case .key(let key): (query, arguments) = (TreeRead.tileDataByKey, Self.arguments(key, region))
        case .row(let id): (query, arguments) = (TreeRead.tileServedByID, [.int(id.rawValue), .int(region.rawValue)])
        }
        return try readers.withConnection { connection in
            try connection.first(query, arguments) { row in
                let id = TileID(rawValue: row.int64(0))
                return (id, wantsContent(id) ? try row.served(1, compressed: row.bool(2)) : nil)
            }
        }
    }
}

extension ReadRow {
    /// A stored tile as served (`ServedTile`), decoded where SQLite holds it: a gzip blob
    /// stored as is is inflated straight from SQLite's buffer, with no copy.
    func served(_ column: Int32, compressed: Bool) throws -> Data? {
        if compressed {
            guard let decoded = try decoded(column, compressed: true) else { return nil }
            guard Zlib.isGzip(decoded) else { return decoded }
            return try decoded.withUnsafeBytes { try connection.inflate($0) }
        }
        guard let stored = bytes(column) else { return nil }
        return Zlib.isGzip(stored) ? try connection.inflate(stored) : Data(stored)
    }
}

extension ReadConnection {
    /// `bytes` inflated (zlib or gzip, by its header) with this connection's decompressor;
    /// zlib's answer stands for whatever libdeflate does not decode.
    func inflate(_ bytes: UnsafeRawBufferPointer) throws -> Data {
        if let data = WholeInflate.decompress(bytes, limit: Zlib.maxInflatedBytes, using: inflater) { return data }
        return try Zlib.decompress(Data(bytes))
    }
}
