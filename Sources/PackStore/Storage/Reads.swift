import GRDB

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
                db.cachedStatement(sql: """
                    SELECT id, url_template, pixel_ratio, z, x, y, expires, modified, etag, data,
                      compressed, accessed, must_revalidate FROM tiles
                    WHERE url_template = ? AND pixel_ratio = ? AND z = ? AND x = ? AND y = ?
                    """), arguments: [key.urlTemplate, key.pixelRatio, key.z, key.x, key.y]
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

    public func markAccessed(tile key: TileKey) throws {
        _ = try write { batch in
            try batch.database.execute(
                sql: """
                    UPDATE tiles SET accessed = ? WHERE url_template = ? AND pixel_ratio = ?
                      AND z = ? AND x = ? AND y = ?
                    """,
                arguments: [batch.now, key.urlTemplate, key.pixelRatio, key.z, key.x, key.y])
        }
    }

    // `decode` throws where a subscript would trap: a database file is outside data, and a NULL
    // or a text in a column PackFS reads as a number must fail the read, not the daemon.
    static func headers(from row: Row) throws -> CacheHeaders {
        try CacheHeaders(
            expires: row.decode(forColumn: "expires"), modified: row.decode(forColumn: "modified"),
            etag: row.decode(forColumn: "etag"), mustRevalidate: row.decode(forColumn: "must_revalidate"))
    }

    static func resource(from row: Row) throws -> StoredResource {
        try StoredResource(
            id: ResourceID(rawValue: row.decode(forColumn: "id")), url: row.decode(forColumn: "url"),
            kind: ResourceKind(rawValue: row.decode(forColumn: "kind")) ?? .unknown,
            data: StoredData(bytes: row.decode(forColumn: "data"), compressed: row.decode(forColumn: "compressed")),
            headers: headers(from: row), accessed: row.decode(forColumn: "accessed"))
    }

    static func tile(from row: Row) throws -> StoredTile {
        let key = try TileKey(
            urlTemplate: row.decode(forColumn: "url_template"), pixelRatio: row.decode(forColumn: "pixel_ratio"),
            z: row.decode(forColumn: "z"), x: row.decode(forColumn: "x"), y: row.decode(forColumn: "y"))
        return try StoredTile(
            id: TileID(rawValue: row.decode(forColumn: "id")), key: key,
            data: StoredData(bytes: row.decode(forColumn: "data"), compressed: row.decode(forColumn: "compressed")),
            headers: headers(from: row), accessed: row.decode(forColumn: "accessed"))
    }
}
