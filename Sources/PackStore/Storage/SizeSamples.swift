import SQLiteDB

/// Stored sizes of some rows: how many, and their bytes as stored ("no content" counts 0).
public struct SizeSample: Equatable, Sendable {
    public var count = 0
    public var bytes: Int64 = 0

    public init(count: Int = 0, bytes: Int64 = 0) {
        self.count = count
        self.bytes = bytes
    }

    /// Mean bytes per row; nil for an empty sample.
    public var mean: Double? { count > 0 ? Double(bytes) / Double(count) : nil }
}

/// What the database already holds, measured for byte estimates (`packfs estimate --db`, a download's plan). Every
/// query is a bounded index seek and `LENGTH(data)` reads no blob, so millions of tiles answer as fast as none.
extension OfflineDatabase {
    /// Tiles a sample holds at most: enough for a steady mean, few enough to stay instant.
    public static let sizeSampleLimit = 256

    /// Up to `limit` stored tiles of one template, pixel ratio and zoom in `columns` (each one
    /// index seek, `y` in `rows`; rows as stored, TMS already flipped).
    public func tileSizes(
        urlTemplate: String, pixelRatio: Int, z: Int, columns: [Int], rows: ClosedRange<Int>,
        limit: Int = sizeSampleLimit
    ) throws -> SizeSample {
        try read { db in
            let statement = try db.cachedStatement(sql: SizeSQL.tilesInColumn)
            var sample = SizeSample()
            for x in columns where sample.count < limit {
                let sizes = try Int64.fetchAll(statement, arguments: [
                    urlTemplate, pixelRatio, z, x, rows.lowerBound, rows.upperBound, limit - sample.count,
                ])
                sample.count += sizes.count
                sample.bytes += sizes.reduce(0, +)
            }
            return sample
        }
    }

    /// Up to `limit` stored tiles of one template, pixel ratio and zoom, the first in index order (westmost).
    public func tileSizes(urlTemplate: String, pixelRatio: Int, z: Int, limit: Int = sizeSampleLimit) throws -> SizeSample {
        try read { db in
            let row = try Row.fetchOne(
                db.cachedStatement(sql: "SELECT COUNT(*), COALESCE(SUM(size), 0) FROM (\(SizeSQL.tilesAtZoom))"),
                arguments: [urlTemplate, pixelRatio, z, limit])
            guard let row else { return SizeSample() }
            return SizeSample(count: try row.decode(atIndex: 0), bytes: try row.decode(atIndex: 1))
        }
    }

    /// The stored size of every URL in `urls` that the database holds (0 for "no content").
    public func resourceSizes(_ urls: [String]) throws -> [String: Int64] {
        try read { db in
            let statement = try db.cachedStatement(sql: SizeSQL.resource)
            var sizes: [String: Int64] = [:]
            for url in urls {
                if let size = try Int64.fetchOne(statement, arguments: [url]) { sizes[url] = size }
            }
            return sizes
        }
    }
}

/// The sampling statements (named for the query-plan test, which checks each seeks an index).
enum SizeSQL {
    static let tilesInColumn = """
        SELECT COALESCE(LENGTH(data), 0) AS size FROM tiles WHERE url_template = ? AND pixel_ratio = ?
          AND z = ? AND x = ? AND y BETWEEN ? AND ? LIMIT ?
        """
    static let tilesAtZoom = """
        SELECT COALESCE(LENGTH(data), 0) AS size FROM tiles WHERE url_template = ? AND pixel_ratio = ?
          AND z = ? LIMIT ?
        """
    static let resource = "SELECT COALESCE(LENGTH(data), 0) FROM resources WHERE url = ?"
    static let all = [tilesInColumn, tilesAtZoom, resource]
}
