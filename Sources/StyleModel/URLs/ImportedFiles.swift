import FoundationEssentials
import PackStore

/// The URLs of packs made from an imported MBTiles or PMTiles file. Such a pack keeps its tiles
/// under `<scheme>://<name>/{z}/{x}/{y}` and its TileJSON at `<scheme>://<name>/tiles.json`, and its
/// definition's style URL is `<scheme>://<name>`: keys in a namespace of the file's own, which no
/// server answers, so nothing of it is ever fetched (`isImported`: the lifecycle refuses to
/// refresh it) and nothing a server sends can name it (`References` lets only a document of the
/// same scheme name such URLs).
public enum ImportedFiles {
    public static let mbtilesScheme = "mbtiles"
    public static let pmtilesScheme = "pmtiles"

    /// True for a URL in an imported file's namespace (a remote archive's `pmtiles://http...`
    /// is not: it is fetched, `ArchiveURL`).
    public static func isImported(_ url: String) -> Bool {
        guard ArchiveURL.archiveURL(of: url) == nil else { return false }
        let scheme = URLString.scheme(of: url)
        return scheme == mbtilesScheme || scheme == pmtilesScheme
    }

    /// The style URL, TileJSON URL and tile template of pack `name` imported from a file of `scheme`.
    public static func urls(scheme: String, name: String) -> (style: String, tileJSON: String, template: String) {
        let base = "\(scheme)://\(Tokens.percentEncode(name))"
        return (base, base + "/tiles.json", base + "/{z}/{x}/{y}")
    }
}
