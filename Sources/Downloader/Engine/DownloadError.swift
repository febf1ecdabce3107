import Basics

/// What stops a download run beside its requests' own failures (`HTTPError`). Each case names the
/// URL or limit it concerns: its `description` is what a pack's `error` says.
public enum DownloadError: Error, Equatable, Sendable, CustomStringConvertible {
    /// A `mapbox://` URL that needs `--access-token`.
    case missingAccessToken(url: String)
    /// A `mapbox://` URL that does not name what its use needs (`mapbox://styles/...` for a style).
    case invalidMapboxURL(url: String, reason: String)
    /// A `--rewrite` argument that is not `FROM=TO`.
    case invalidRewrite(String)
    /// A body that is not what the URL was fetched as (`ContentCheck`): it was not stored.
    case unexpectedContent(url: String, expected: String, got: String)
    /// A request that ended without its completion reaching the one waiting for it.
    case noAnswer(url: String)
    /// A PMTiles archive (`pmtiles://` source) that cannot be read as one: bytes that break the
    /// spec, a compression PackFS does not decode, a range the server did not answer.
    case archive(url: String, reason: String)
    /// A 304 to a refresh whose stored copy cannot be read back.
    case emptyStoredCopy(url: String)
    /// `--max-tiles`: `needed` when the plan alone exceeds it, nil when new tiles reached it.
    case tileLimit(limit: Int, needed: Int?)
    /// MapLibre's cap on `mapbox://` tiles, as for `tileLimit`.
    case mapboxTileLimit(limit: Int, needed: Int?)
    /// The pack's rows could not be written (a disk quota speaks for itself instead).
    case writeFailed(String)
    case suspended

    /// Redacted (`Redaction`): URLs here are the requested ones, `access_token` included.
    public var description: String { Redaction.text(plainDescription) }

    private var plainDescription: String {
        switch self {
        case .missingAccessToken(let url): return "\(url): mapbox:// URLs need an access token (--access-token)"
        case .invalidMapboxURL(let url, let reason): return "\(url): \(reason)"
        case .invalidRewrite(let argument): return "--rewrite \(argument): expected FROM=TO with a non-empty FROM"
        case .unexpectedContent(let url, let expected, let got): return "\(url): expected \(expected), got \(got)"
        case .noAnswer(let url): return "no answer for \(url)"
        case .archive(let url, let reason): return "PMTiles archive \(url): \(reason)"
        case .emptyStoredCopy(let url): return "\(url): answered 304 Not Modified, but the stored copy is empty"
        case .tileLimit(let limit, let needed?):
            return "the region needs \(needed) tiles; the tile limit is \(limit) (--max-tiles)"
        case .tileLimit(let limit, nil): return "tile limit reached: the database may hold \(limit) tiles (--max-tiles)"
        case .mapboxTileLimit(let limit, let needed?):
            return "the region needs \(needed) mapbox:// tiles; the Mapbox tile limit is \(limit)"
        case .mapboxTileLimit(let limit, nil): return "Mapbox tile limit reached: \(limit) mapbox:// tiles"
        case .writeFailed(let reason): return "writing the pack failed: \(reason)"
        case .suspended: return "suspended"
        }
    }
}
