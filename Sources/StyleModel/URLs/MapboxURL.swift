/// `mapbox://` URLs, by MapLibre's rules for the Mapbox tile server (`normalize*URL` with
/// `TileServerOptions::MapboxConfiguration`, and `canonicalizeTileURL`).
///
/// Resources are stored under their `mapbox://` form, expanded only for a request (`URLPolicy`),
/// so no access token lands in a key and packs stay shareable between tokens.
public enum MapboxURL {
    public static let scheme = "mapbox://"

    public static func isMapbox(_ url: String) -> Bool { url.hasPrefix(scheme) }

    /// A TileJSON served for a `mapbox://` source lists https tile URLs carrying the token; MapLibre
    /// keys the tiles under `mapbox://tiles/...` templates without it (rasters get `@2x` for
    /// 512-pixel tiles, `{ratio}` otherwise). URLs that are not Mapbox tile URLs come back unchanged.
    public static func canonicalTileTemplate(_ url: String, type: TileSourceType, tileSize: Int) -> String {
        let parts = Segments(url)
        let file = PathParts(parts.path)
        guard URLString.scheme(of: url) != nil,
            parts.domain.replacing(".cn", with: ".com").hasSuffix("mapbox.com"),
            !file.filename.isEmpty, file.extension.count > 1, file.directory.hasPrefix("/v4/")
        else { return url }
        var result = "mapbox://tiles" + file.directory.dropFirst("/v4".count) + file.filename
        if type != .vector { result += tileSize == 512 ? "@2x" : "{ratio}" }
        result += file.extension
        let kept = parts.query.dropFirst().split(separator: "&", omittingEmptySubsequences: false)
            .filter { !$0.hasPrefix("access_token=") }
        if parts.query.count > 1 && !kept.isEmpty { result += "?" + kept.joined(separator: "&") }
        return result
    }

    /// MapLibre's `URL` segments: the domain runs from after `scheme:` and any `/` up to the next
    /// `/`; the path from there to the query; the query from `?` to `#`.
    public struct Segments: Sendable {
        public let url: String
        public let domain: String
        public let path: String
        public let query: Substring

        public init(_ url: String) {
            self.url = url
            let (head, query) = URLString.splitQuery(url)
            var rest = head
            if let scheme = URLString.scheme(of: url) { rest = rest.dropFirst(scheme.count) }
            rest = rest.drop(while: { $0 == ":" || $0 == "/" })
            let slash = rest.firstIndex(of: "/") ?? rest.endIndex
            domain = String(rest[..<slash])
            path = String(rest[slash...])
            self.query = query
        }
    }

    /// MapLibre's `Path`: directory through the last `/`, then filename, then the extension from
    /// the last `.` (with a preceding `@2x` counted in).
    public struct PathParts: Sendable {
        public let directory: String
        public let filename: String
        public let `extension`: String

        public init(_ path: String) {
            let cut = path.lastIndex(of: "/").map(path.index(after:)) ?? path.startIndex
            directory = String(path[..<cut])
            let name = path[cut...]
            guard var dot = name.lastIndex(of: ".") else {
                (filename, `extension`) = (String(name), "")
                return
            }
            if name[..<dot].hasSuffix("@2x") { dot = name.index(dot, offsetBy: -3) }
            (filename, `extension`) = (String(name[..<dot]), String(name[dot...]))
        }
    }
}
