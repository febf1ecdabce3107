import PackStore

/// `mapbox://` URLs, by MapLibre's rules for the Mapbox tile server (`normalize*URL` with
/// `TileServerOptions::MapboxConfiguration`, and `canonicalizeTileURL`).
///
/// PackFS stores every resource under its `mapbox://` form and expands it only to make a request,
/// so an access token never lands in a key and packs stay shareable between tokens.
enum MapboxURL {
    static let scheme = "mapbox://"
    static let apiBase = "https://api.mapbox.com"

    static func isMapbox(_ url: String) -> Bool { url.hasPrefix(scheme) }

    /// The https URL MapLibre requests for a `mapbox://` URL used as `kind`.
    static func expand(_ url: String, kind: ResourceKind, accessToken: String?) throws -> String {
        guard let token = accessToken, !token.isEmpty else {
            throw DownloadError.missingAccessToken(url: url)
        }
        let parts = Segments(url)
        let tokenQuery = "?access_token=" + token
        let expanded: String
        switch kind {
        case .source:
            expanded = apiBase + "/v4/" + parts.domain + ".json" + tokenQuery + "&secure"
        case .style:
            try parts.require(domain: "styles", for: "a style")
            expanded = apiBase + "/styles/v1" + parts.path + tokenQuery
        case .spriteImage, .spriteJSON:
            try parts.require(domain: "sprites", for: "a sprite")
            let file = PathParts(parts.path)
            expanded =
                apiBase + "/styles/v1" + file.directory + file.filename + "/sprite" + file.extension
                + tokenQuery
        case .glyphs:
            try parts.require(domain: "fonts", for: "glyphs")
            expanded = apiBase + "/fonts/v1" + parts.path + tokenQuery
        case .tile:
            try parts.require(domain: "tiles", for: "a tile")
            expanded = apiBase + "/v4" + parts.path + tokenQuery
        case .image, .unknown:
            throw DownloadError.invalidMapboxURL(url: url, reason: "mapbox:// is not defined for images")
        }
        // The URL's own query follows the token, `?` turned into `&` (MapLibre's transformURL).
        return parts.query.count > 1 ? expanded + "&" + parts.query.dropFirst() : expanded
    }

    /// A TileJSON served for a `mapbox://` source lists https tile URLs carrying the token; MapLibre
    /// stores them as `mapbox://tiles/...` templates without it. URLs that are not Mapbox tile URLs
    /// come back unchanged.
    static func canonicalTileTemplate(_ url: String, type: TileSourceType, tileSize: Int) -> String {
        MapboxTileTemplate.canonical(url, isVector: type == .vector, tileSize: tileSize)
    }

    /// MapLibre's `URL` segments: the domain runs from after `scheme:` and any `/` up to the next
    /// `/`; the path from there to the query; the query from `?` to `#`.
    struct Segments {
        let url: String
        let domain: String
        let path: String
        let query: Substring

        init(_ url: String) {
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

        func require(domain expected: String, for use: String) throws {
            guard domain == expected else {
                throw DownloadError.invalidMapboxURL(
                    url: url, reason: "\(use) must be a mapbox://\(expected)/... URL")
            }
        }
    }

    /// MapLibre's `Path`: directory through the last `/`, then filename, then the extension from
    /// the last `.` (with a preceding `@2x` counted in).
    struct PathParts {
        let directory: String
        let filename: String
        let `extension`: String

        init(_ path: String) {
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
