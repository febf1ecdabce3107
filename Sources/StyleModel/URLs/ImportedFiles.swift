import FoundationEssentials
import PackStore

/// The URLs of packs imported from an MBTiles or PMTiles file: style `<scheme>://<name>`, TileJSON
/// `.../tiles.json`, tiles `.../{z}/{x}/{y}`. No server answers that namespace, so nothing of it is
/// fetched (`isImported`) and nothing a server sends can name it (`References`).
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
