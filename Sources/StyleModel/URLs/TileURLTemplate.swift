import FoundationEssentials
import PackStore

#if canImport(Glibc)
    import Glibc
#endif

/// Tile URL templates: the tokens MapLibre's `Resource::tile` substitutes, and the stored key. As in
/// MapLibre, every token (`{quadkey}` and `{bbox-epsg-3857}` too) uses the requested y, flipped for TMS.
public enum TileURLTemplate {
    /// The tile's URL in stored form (`mapbox://` kept; `URLPolicy` makes the request URL). `key.y` is
    /// the requested row; `{ratio}` is `@2x` when the key's pixel ratio is 2.
    public static func url(for key: TileKey) -> String {
        url(template: key.urlTemplate, z: key.z, x: key.x, y: key.y, highDensity: key.pixelRatio > 1)
    }

    /// The key's pixel ratio: 2 only when the template holds `{ratio}` and the pack asks for more
    /// than 1 (MapLibre's rule; a template without the token serves one density).
    public static func keyPixelRatio(template: String, packPixelRatio: Double) -> Int {
        template.contains("{ratio}") && packPixelRatio > 1 ? 2 : 1
    }

    public static func url(template: String, z: Int, x: Int, y: Int, highDensity: Bool) -> String {
        Tokens.replace(in: template) { token in
            switch token {
            case "z": return String(z)
            case "x": return String(x)
            case "y": return String(y)
            case "ratio": return highDensity ? "@2x" : ""
            case "prefix": return hexDigit(x & 15) + hexDigit(y & 15)
            case "quadkey": return quadkey(z: z, x: x, y: y)
            case "bbox-epsg-3857": return bbox(z: z, x: x, y: y)
            default: return nil
            }
        }
    }

    private static func hexDigit(_ value: Int) -> String {
        String(Array("0123456789abcdef")[value])
    }

    /// Bing's quadkey: one digit per zoom level, 1 for the x bit plus 2 for the y bit.
    static func quadkey(z: Int, x: Int, y: Int) -> String {
        var key = ""
        for level in stride(from: z, to: 0, by: -1) {
            let mask = 1 << (level - 1)
            key += String((x & mask != 0 ? 1 : 0) + (y & mask != 0 ? 2 : 0))
        }
        return key
    }

    /// `minX,minY,maxX,maxY` in Web Mercator metres, computed in MapLibre's order of operations
    /// so the digits match (WMS servers cache by the exact string).
    static func bbox(z: Int, x: Int, y: Int) -> String {
        let circumference = 2 * Double.pi * 6_378_137.0
        let row = (1 << z) - y - 1  // MapLibre flips here, as WMS counts rows from the south
        let resolution = (circumference / 256) / pow(2, Double(z))
        func metres(_ pixel: Int) -> String { number(Double(pixel) * resolution - circumference / 2) }
        return [metres(x * 256), metres(row * 256), metres((x + 1) * 256), metres((row + 1) * 256)]
            .joined(separator: ",")
    }

    /// Shortest round-trip digits without a trailing `.0`, as MapLibre's `util::toString(double)`.
    private static func number(_ value: Double) -> String {
        let text = "\(value)"
        return text.hasSuffix(".0") ? String(text.dropLast(2)) : text
    }
}

/// A tiled source's row numbering: XYZ counts rows from the north, TMS from the south.
public enum TileScheme: String, Sendable {
    case xyz, tms

    /// Row `y` of zoom `z` in the other numbering (its own inverse). Smart shifts and wrapping
    /// arithmetic: a stored zoom comes from a database file, and no value there may trap.
    public func row(_ y: Int, z: Int) -> Int {
        self == .tms ? (1 << z) &- 1 &- y : y
    }
}
