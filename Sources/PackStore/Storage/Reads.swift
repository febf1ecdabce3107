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

    static func headers(from row: Row) -> CacheHeaders {
        CacheHeaders(
            expires: row["expires"], modified: row["modified"], etag: row["etag"],
            mustRevalidate: row["must_revalidate"])
    }

    static func resource(from row: Row) -> StoredResource {
        StoredResource(
            id: ResourceID(rawValue: row["id"]), url: row["url"],
            kind: ResourceKind(rawValue: row["kind"]) ?? .unknown,
            data: StoredData(bytes: row["data"], compressed: row["compressed"]),
            headers: headers(from: row), accessed: row["accessed"])
    }

    static func tile(from row: Row) -> StoredTile {
        let key = TileKey(
            urlTemplate: row["url_template"], pixelRatio: row["pixel_ratio"], z: row["z"],
            x: row["x"], y: row["y"])
        return StoredTile(
            id: TileID(rawValue: row["id"]), key: key,
            data: StoredData(bytes: row["data"], compressed: row["compressed"]),
            headers: headers(from: row), accessed: row["accessed"])
    }
}
