import Basics
import SQLiteDB

/// Reading single resources and tiles back.
extension OfflineDatabase {
    public func resource(url: String) throws -> StoredResource? {
        try read { db in
            try Row.fetchOne(
                db.cachedStatement(sql: """
                    SELECT id, url, kind, expires, modified, etag, data, compressed, accessed,
                      must_revalidate FROM resources WHERE url = ?
                    """), arguments: [url]
            ).map(Self.resource(from:))
        }
    }

    public func tile(_ key: TileKey) throws -> StoredTile? {
        try read { db in
            try Row.fetchOne(
                db.cachedStatement(sql: "SELECT \(Self.tileColumns) FROM tiles WHERE \(TileKey.match)"),
                arguments: key.arguments
            ).map(Self.tile(from:))
        }
    }

    /// Records a use of a resource (the ambient cache evicts least recently accessed first).
    public func markAccessed(resourceURL url: String) throws {
        _ = try write { batch in
            try batch.database.execute(
                sql: "UPDATE resources SET accessed = ? WHERE url = ?", arguments: [batch.now, url])
        }
    }

    /// Validators are advice: one that does not decode (an app wrote text into `expires`) is
    /// absent, and the next refresh revalidates without it.
    static func headers(from row: Row) -> CacheHeaders {
        CacheHeaders(
            expires: row.lenient("expires"), modified: row.lenient("modified"), etag: row.lenient("etag"),
            mustRevalidate: row.lenient("must_revalidate") ?? false)
    }

    static func resource(from row: Row) throws -> StoredResource {
        StoredResource(
            id: ResourceID(rawValue: try row.stored("id", of: "resources")), url: try row.stored("url", of: "resources"),
            kind: row.lenient("kind").flatMap(ResourceKind.init(rawValue:)) ?? .unknown,
            data: try storedData(row, of: "resources"), headers: headers(from: row),
            accessed: row.lenient("accessed") ?? 0)
    }

    /// The columns `tile(from:)` reads.
    static let tileColumns = """
        id, url_template, pixel_ratio, z, x, y, expires, modified, etag, data, compressed, accessed, must_revalidate
        """

    static func tile(from row: Row) throws -> StoredTile {
        let key = TileKey(
            urlTemplate: try row.stored("url_template", of: "tiles"),
            pixelRatio: try row.stored("pixel_ratio", of: "tiles"), z: try row.stored("z", of: "tiles"),
            x: try row.stored("x", of: "tiles"), y: try row.stored("y", of: "tiles"))
        return StoredTile(
            id: TileID(rawValue: try row.stored("id", of: "tiles")), key: key, data: try storedData(row, of: "tiles"),
            headers: headers(from: row), accessed: row.lenient("accessed") ?? 0)
    }

    /// `data` as bytes (text as its UTF-8 bytes, as SQLite hands it to a blob reader), `compressed` as a flag.
    static func storedData(_ row: Row, of table: String) throws -> StoredData {
        StoredData(bytes: try row.stored("data", of: table), compressed: row.lenient("compressed") ?? false)
    }
}

extension TileKey {
    /// The condition that finds a `tiles` row by its unique key, bound by `arguments`.
    static let match = "url_template = ? AND pixel_ratio = ? AND z = ? AND x = ? AND y = ?"

    var arguments: StatementArguments { [urlTemplate, pixelRatio, z, x, y] }
}
