import FoundationEssentials
import PackStore

/// MapLibre's PMTiles protocol: a tiled source whose `url` is `pmtiles://` followed by the http(s)
/// URL of a PMTiles archive (`pmtiles://https://host/planet.pmtiles`), read with range requests. Its
/// metadata is stored as the TileJSON under that URL, its tiles under `<that URL>/{z}/{x}/{y}`: one
/// stable key per archive, whichever mirror (`--rewrite`) answers.
public enum ArchiveURL {
    public static let prefix = "pmtiles://"
    static let tilePath = "/{z}/{x}/{y}"

    /// The archive's own http(s) URL when `url` is such a source URL, else nil (an imported
    /// file's `pmtiles://<name>` is not one).
    public static func archiveURL(of url: String) -> String? {
        guard url.hasPrefix(prefix) else { return nil }
        let inner = String(url.dropFirst(prefix.count))
        let scheme = URLString.scheme(of: inner)
        guard scheme == "http" || scheme == "https" else { return nil }
        return inner
    }

    /// The tile template of the archive whose source URL is `sourceURL`.
    public static func template(of sourceURL: String) -> String { sourceURL + tilePath }

    /// The source URL whose tiles `template` names, when it is an archive's template.
    public static func sourceURL(ofTemplate template: String) -> String? {
        guard template.hasSuffix(tilePath) else { return nil }
        let source = String(template.dropLast(tilePath.count))
        return archiveURL(of: source) == nil ? nil : source
    }
}
