import Basics
import FoundationEssentials
import PackStore

/// Whether fetched bytes are the `ContentKind` they were fetched as, so an error page never becomes a tile
/// (docs/design.md §4). Structure only (JSON shape, image signatures, protobuf framing): cheap (docs/benchmarks.md).
public enum ContentCheck {
    /// A gzipped vector tile is inflated for its check up to this many bytes; past it the tile is
    /// refused (a real tile is a small fraction of it).
    public static let maxInflatedTile = 32 << 20

    /// nil when `content` (transfer encoding removed) is a `kind`; else what came instead, for
    /// the error (`a JSON object without a "tiles" array`, `HTML text "<html>..."`).
    public static func mismatch(_ content: Data, expected kind: ContentKind) -> String? {
        switch kind {
        case .style, .tileJSON, .geoJSON, .spriteIndex:
            return jsonMismatch(content, kind)
        case .image:
            return isImage(content) ? nil : ContentDescription.of(content)
        case .rasterTile:
            // An empty tile is "no content", as a 204 is.
            return content.isEmpty || isImage(content) ? nil : ContentDescription.of(content)
        case .spriteImage:
            return ImageSignature.of(content) == .png ? nil : ContentDescription.of(content)
        case .glyphs:
            return binaryMismatch(content, GlyphRangeCheck.problem(in:))
        case .vectorTile:
            return vectorTileMismatch(content)
        case .mapLibreTile:
            // MLT's framing is not settled enough to judge: never refused as a bad protobuf.
            return nil
        }
    }

    private static func isImage(_ content: Data) -> Bool {
        [.png, .jpeg, .webp].contains(ImageSignature.of(content))
    }

    /// A vector tile, inflated first when gzipped (a server that stores tiles gzipped and sends
    /// them without Content-Encoding); empty is "no content".
    private static func vectorTileMismatch(_ content: Data) -> String? {
        guard !content.isEmpty else { return nil }
        guard Zlib.isGzip(content) else { return binaryMismatch(content, VectorTileCheck.problem(in:)) }
        let inflated: Data
        do {
            inflated = try Zlib.decompress(content, limit: maxInflatedTile)
        } catch {
            return "\(content.count) bytes of gzip data that do not inflate within \(maxInflatedTile) bytes (\(error))"
        }
        return binaryMismatch(inflated, VectorTileCheck.problem(in:)).map { "gzip data holding \($0)" }
    }

    /// nil when `problem` finds none; else the bytes described, with the problem when they are
    /// binary (text and images speak for themselves).
    private static func binaryMismatch(_ content: Data, _ problem: (UnsafeRawBufferPointer) -> String?) -> String? {
        guard let found = content.withUnsafeBytes(problem) else { return nil }
        let description = ContentDescription.of(content)
        return description.hasSuffix("of binary") ? "\(description) (\(found))" : description
    }

    private static func jsonMismatch(_ content: Data, _ kind: ContentKind) -> String? {
        guard let json = JSONValue.parse(content), let members = json.object else { return ContentDescription.of(content) }
        switch kind {
        case .style:
            let missing = Style.missingMembers(members)
            guard !missing.isEmpty else { return nil }
            return "\(Style.kind(of: members) ?? "a JSON object") without \(missing.joined(separator: ", "))"
        case .tileJSON:
            return members["tiles"]?.array != nil ? nil : "a JSON object without a \"tiles\" array"
        case .geoJSON:
            return geoJSONMismatch(members)
        default:
            return spriteIndexMismatch(members)
        }
    }

    static let geoJSONTypes: Set<String> = [
        "FeatureCollection", "Feature", "Point", "MultiPoint", "LineString", "MultiLineString", "Polygon",
        "MultiPolygon", "GeometryCollection",
    ]

    private static func geoJSONMismatch(_ members: [String: JSONValue]) -> String? {
        guard let type = members["type"]?.string else { return "a JSON object without a \"type\"" }
        guard !geoJSONTypes.contains(type) else { return nil }
        return "a JSON object whose \"type\" is \"\(ContentDescription.excerpt(type[...]))\""
    }

    /// Every entry an object with numeric x, y, width and height (an empty index is valid);
    /// entries are judged in key order, so the first one named is the same every time.
    private static func spriteIndexMismatch(_ members: [String: JSONValue]) -> String? {
        for name in members.keys.sorted() {
            let shown = "\"\(ContentDescription.excerpt(name[...]))\""
            guard let entry = members[name]?.object else { return "a JSON object whose entry \(shown) is not an object" }
            for field in ["x", "y", "width", "height"] where entry[field]?.number == nil {
                return "a JSON object whose entry \(shown) has no numeric \(field)"
            }
        }
        return nil
    }
}

/// Whether bytes walk as MapLibre's glyphs.proto: `glyphs { repeated fontstack stacks = 1; }`,
/// each stack a message whose fields decode within it (name 1, range 2 and glyphs 3 being
/// length-delimited). An empty body is a range without glyphs, as MapLibre reads it.
enum GlyphRangeCheck {
    static func problem(in bytes: UnsafeRawBufferPointer) -> String? {
        var reader = ProtobufCursor(bytes: bytes, offset: 0, end: bytes.count)
        var stack = 0
        while !reader.atEnd {
            guard let (field, wire) = reader.key(), field == 1, wire == 2, let range = reader.lengthDelimited() else {
                return "font stack \(stack) is not a message of field 1"
            }
            if let problem = stackProblem(bytes, range) { return "font stack \(stack): \(problem)" }
            stack += 1
        }
        return nil
    }

    private static func stackProblem(_ bytes: UnsafeRawBufferPointer, _ range: Range<Int>) -> String? {
        var reader = ProtobufCursor(bytes: bytes, offset: range.lowerBound, end: range.upperBound)
        while !reader.atEnd {
            guard let (field, wire) = reader.key() else { return "a field key does not decode" }
            if (1...3).contains(field), wire != 2 { return "field \(field) is not length-delimited" }
            guard reader.skip(wire) else { return "field \(field) runs past the stack" }
        }
        return nil
    }
}
