import HTTP
import PackStore
import StyleModel

/// How a download behaves: URL policy, HTTP settings and limits (the command line's options).
public struct DownloadOptions: Sendable {
    public var urlPolicy = URLPolicy()
    public var http = HTTPClientConfiguration()
    /// `--max-tiles`: tiles in the whole database at most; nil for no cap.
    public var maxTiles: Int?
    /// Tiles with a `mapbox://` template in the whole database at most (MapLibre's rule).
    public var mapboxTileLimit = 6000
    /// `--disk-quota`: bytes of database pages in use at most (the ambient cache evicted first).
    public var diskQuota: Int64?
    /// Requests handed to the HTTP client and not yet finished, at most: bounds memory for huge
    /// regions while keeping the client's 20 transfers busy (docs/benchmarks.md).
    public var window = 1024

    public init() {}
}

/// What the downloader's tag says a request is for.
enum FetchTag: Sendable {
    /// The style or a TileJSON: needed before the rest can be planned.
    case document(url: String, kind: ResourceKind)
    case resource(StyleResource)
    /// `chunk`: the plan chunk the tile belongs to (`ResumeLedger`); `content`: what it must be.
    case tile(TileKey, chunk: Int, content: ContentKind)
    /// One range of an archive's tile data, holding several tiles.
    case archiveTiles(ArchivePiece)
}

/// The tiles one range request of an archive carries, each at its place in the range.
struct ArchivePiece: Sendable {
    struct Tile: Sendable {
        var key: TileKey
        var chunk: Int
        /// Where the tile's bytes start in the range, and how many.
        var start: Int
        var length: Int
        /// Whether a row for the key is stored (a refresh then compares bytes before writing).
        var replaces: Bool
    }

    var sourceURL: String
    var range: ByteRange
    var tiles: [Tile]
    /// What its tiles must be (their source's `ContentKind`).
    var content: ContentKind
}
