import Basics
import FoundationEssentials

/// A row of `resources` as read back.
public struct StoredResource: Equatable, Sendable {
    public var id: ResourceID
    public var url: String
    public var kind: ResourceKind
    public var data: StoredData
    public var headers: CacheHeaders
    public var accessed: Int64
}

/// A row of `tiles` as read back.
public struct StoredTile: Equatable, Sendable {
    public var id: TileID
    public var key: TileKey
    public var data: StoredData
    public var headers: CacheHeaders
    public var accessed: Int64
}

/// Unix seconds now; the only clock PackStore reads.
func unixNow() -> Int64 { Int64(Date().timeIntervalSince1970) }
