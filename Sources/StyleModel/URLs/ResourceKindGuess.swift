import Basics
import FoundationEssentials
import PackStore

/// The kind of resource a URL names, from its shape alone (`packfs cache preload`): `mapbox://` URLs
/// by MapLibre's forms, others by conventional file names (`0-255.pbf`, `sprite@2x.png`, `*.geojson`).
/// Otherwise `.unknown`, as MapLibre's `preloadData` stores everything: a resource is found by URL.
public enum ResourceKindGuess {
    public static func kind(of url: String) -> ResourceKind {
        if MapboxURL.isMapbox(url) { return mapboxKind(url) }
        guard let components = URLComponents(string: url) else { return .unknown }
        let name = PathText.lastComponent(components.path).lowercased()
        let stem = PathText.stem(name)
        switch PathText.fileExtension(name) {
        case "pbf" where isGlyphRange(stem): return .glyphs
        case "json" where stem.hasPrefix("sprite") || components.path.lowercased().contains("/sprites/"):
            return .spriteJSON
        case "png" where stem.hasPrefix("sprite") || components.path.lowercased().contains("/sprites/"):
            return .spriteImage
        case "geojson": return .source
        case "json" where stem.contains("style") || components.path.lowercased().contains("/styles/"): return .style
        case "json" where stem.contains("tiles") || components.path.lowercased().contains("/tiles/"): return .source
        case "png", "jpg", "jpeg", "webp", "gif": return .image
        default: return .unknown
        }
    }

    /// "0-255": digits, a dash, digits.
    private static func isGlyphRange(_ stem: String) -> Bool {
        let parts = stem.split(separator: "-", omittingEmptySubsequences: false)
        return parts.count == 2 && parts.allSatisfy { !$0.isEmpty && $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }
    }

    /// mapbox://styles/..., mapbox://fonts/..., mapbox://sprites/...(.json|.png), mapbox://ids.
    private static func mapboxKind(_ url: String) -> ResourceKind {
        let rest = url.dropFirst(MapboxURL.scheme.count)
        let path = rest.split(separator: "?", maxSplits: 1).first.map(String.init) ?? ""
        if path.hasPrefix("styles/") { return .style }
        if path.hasPrefix("fonts/") { return .glyphs }
        if path.hasPrefix("sprites/") { return path.hasSuffix(".png") ? .spriteImage : .spriteJSON }
        if path.hasPrefix("tiles/") { return .unknown }
        return path.contains("/") ? .unknown : .source
    }
}
