/// MapLibre's `canonicalizeTileURL`: the TileJSON served for a `mapbox://` source lists https tile
/// URLs that carry the access token; MapLibre keys the tiles under a `mapbox://tiles/...` template
/// without it. The downloader keys tiles so, and the mount must find them so: one rule, here.
public enum MapboxTileTemplate {
    /// The canonical template for `url`; URLs that are not Mapbox tile URLs come back unchanged.
    public static func canonical(_ url: String, isVector: Bool, tileSize: Int) -> String {
        let (head, query) = split(url)
        guard let (domain, path) = domainAndPath(head) else { return url }
        let (directory, filename, suffix) = pathParts(path)
        guard domain.replacingOccurrences(of: ".cn", with: ".com").hasSuffix("mapbox.com"), !filename.isEmpty,
            suffix.count > 1, directory.hasPrefix("/v4/")
        else { return url }
        var result = "mapbox://tiles" + directory.dropFirst("/v4".count) + filename
        if !isVector { result += tileSize == 512 ? "@2x" : "{ratio}" }
        result += suffix
        let kept = query.dropFirst().split(separator: "&", omittingEmptySubsequences: false)
            .filter { !$0.hasPrefix("access_token=") }
        if query.count > 1 && !kept.isEmpty { result += "?" + kept.joined(separator: "&") }
        return result
    }

    /// The URL before `?` and the query from `?` up to any `#`.
    private static func split(_ url: String) -> (head: Substring, query: Substring) {
        let hash = url.firstIndex(of: "#") ?? url.endIndex
        guard let mark = url.firstIndex(of: "?"), mark < hash else { return (url[..<hash], url[hash..<hash]) }
        return (url[..<mark], url[mark..<hash])
    }

    /// MapLibre's URL segments: the domain after `scheme://`, the path from the next `/`.
    private static func domainAndPath(_ head: Substring) -> (domain: String, path: String)? {
        guard let colon = head.firstIndex(of: ":") else { return nil }
        let rest = head[head.index(after: colon)...].drop(while: { $0 == "/" })
        let slash = rest.firstIndex(of: "/") ?? rest.endIndex
        return (String(rest[..<slash]), String(rest[slash...]))
    }

    /// MapLibre's `Path`: directory through the last `/`, file name, and the extension from the
    /// last `.` with a preceding `@2x` counted in.
    private static func pathParts(_ path: String) -> (directory: String, filename: String, suffix: String) {
        let cut = path.lastIndex(of: "/").map(path.index(after:)) ?? path.startIndex
        let name = path[cut...]
        guard var dot = name.lastIndex(of: ".") else { return (String(path[..<cut]), String(name), "") }
        if name[..<dot].hasSuffix("@2x") { dot = name.index(dot, offsetBy: -3) }
        return (String(path[..<cut]), String(name[..<dot]), String(name[dot...]))
    }
}
