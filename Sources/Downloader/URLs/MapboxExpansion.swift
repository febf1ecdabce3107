import HTTP
import PackStore
import StyleModel

/// The request side of `mapbox://` URLs (MapLibre's `normalize*URL` with the Mapbox tile server
/// options): the https URL asked for, with the access token. Keys stay in `mapbox://` form.
enum MapboxExpansion {
    static let apiBase = "https://api.mapbox.com"

    /// The https URL MapLibre requests for a `mapbox://` URL used as `kind`.
    static func expand(_ url: String, kind: ResourceKind, accessToken: String?) throws -> String {
        guard let token = accessToken, !token.isEmpty else {
            throw DownloadError.missingAccessToken(url: url)
        }
        let parts = MapboxURL.Segments(url)
        let tokenQuery = "?access_token=" + token
        let expanded: String
        switch kind {
        case .source:
            expanded = apiBase + "/v4/" + parts.domain + ".json" + tokenQuery + "&secure"
        case .style:
            try require(parts, domain: "styles", for: "a style")
            expanded = apiBase + "/styles/v1" + parts.path + tokenQuery
        case .spriteImage, .spriteJSON:
            try require(parts, domain: "sprites", for: "a sprite")
            let file = MapboxURL.PathParts(parts.path)
            expanded = apiBase + "/styles/v1" + file.directory + file.filename + "/sprite" + file.extension + tokenQuery
        case .glyphs:
            try require(parts, domain: "fonts", for: "glyphs")
            expanded = apiBase + "/fonts/v1" + parts.path + tokenQuery
        case .tile:
            try require(parts, domain: "tiles", for: "a tile")
            expanded = apiBase + "/v4" + parts.path + tokenQuery
        case .image, .unknown:
            throw DownloadError.invalidMapboxURL(url: url, reason: "mapbox:// is not defined for images")
        }
        // The URL's own query follows the token, `?` turned into `&` (MapLibre's transformURL).
        return parts.query.count > 1 ? expanded + "&" + parts.query.dropFirst() : expanded
    }

    private static func require(_ parts: MapboxURL.Segments, domain expected: String, for use: String) throws {
        guard parts.domain == expected else {
            throw DownloadError.invalidMapboxURL(
                url: parts.url, reason: "\(use) must be a mapbox://\(expected)/... URL")
        }
    }
}
