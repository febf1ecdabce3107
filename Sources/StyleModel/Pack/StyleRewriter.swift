import Basics
import FoundationEssentials
import PackStore

/// A pack's style made to render from the pack's files alone, for the mount and `packfs export` (same
/// tree): each tiled source inlined as StyleModel read it (no `url`), in XYZ like the tree's tile paths,
/// and every URL under one base: the mount's `file://MOUNTPOINT/packs/<name>/` or an export's address
/// (empty: relative).
public struct StyleRewriter: Sendable {
    /// Prefix of every path in the tree: empty, or ending in `/`.
    public let base: String

    /// `base` as given, with a `/` added when it is neither empty nor ends in one.
    public init(base: String) {
        self.base = base.isEmpty || base.hasSuffix("/") ? base : base + "/"
    }

    /// A `file://` URL for an absolute path, each byte MapLibre's file source would misread
    /// percent-encoded (it decodes the path before opening it); `{tokens}` stay as written.
    public static func fileURL(path: String) -> String {
        "file://" + Tokens.percentEncode(path, keeping: Set("/{}".utf8))
    }

    /// `sources/<id>/` of `source` (its escaped name, encoded again for the URL).
    public func directory(_ source: PackStyle.Source) -> String {
        "\(base)sources/\(Tokens.percentEncode(source.declared.directoryName))/"
    }

    public func tilesTemplate(_ source: PackStyle.Source) -> String {
        directory(source) + "{z}/{x}/{y}.\(source.fileExtension)"
    }

    /// The rewritten `style` over the stored `sources`, as compact JSON, redacted: a URL left as
    /// written (a source PackFS does not store) may carry a key, and every reader sees this file.
    public func style(_ style: Style, sources: [PackStyle.Source]) -> Data {
        var members = style.members
        var objects = members["sources"]?.object ?? [:]
        for source in sources {
            objects[source.id] = .object(rewritten(source))
        }
        members["sources"] = .object(objects)
        if style.glyphs != nil { members["glyphs"] = .string(base + "glyphs/{fontstack}/{range}.pbf") }
        switch members["sprite"] {
        case .string?:
            members["sprite"] = .string(base + "sprites/default")
        case .array?:
            members["sprite"] = .array(
                style.sprites.map {
                    .object(["id": .string($0.id), "url": .string(base + "sprites/" + Tokens.percentEncode(FileName.escape($0.id)))])
                })
        default: break
        }
        return Data(Redaction.text(JSONValue.object(members).compactText).utf8)
    }

    /// A source object with everything it names in the tree.
    public func rewritten(_ source: PackStyle.Source) -> [String: JSONValue] {
        var fields = source.declared.object
        switch source.declared.kind {
        case .tiled:
            fields["url"] = nil
            fields["scheme"] = nil
            fields["tiles"] = .array([.string(tilesTemplate(source))])
            for (key, value) in tileFields(source.tiles) { fields[key] = value }
        case .geojson:
            fields["data"] = source.declared.dataFileName.map { .string(directory(source) + $0) }
        case .image:
            fields["url"] = source.declared.dataFileName.map { .string(directory(source) + $0) }
        }
        return fields
    }

    /// `tiles.json` of a source the style lists inline (there is no stored TileJSON to show).
    public func tileJSON(_ source: PackStyle.Source) -> Data {
        var fields: [String: JSONValue] = ["tilejson": .string("3.0.0"), "tiles": .array([.string(tilesTemplate(source))])]
        for (key, value) in tileFields(source.tiles) { fields[key] = value }
        return Data(JSONValue.object(fields).compactText.utf8)
    }

    /// The TileJSON fields a renderer needs besides `tiles`, once the source's tiles are known.
    private func tileFields(_ tiles: TileSource?) -> [String: JSONValue] {
        guard let tiles else { return [:] }
        var fields: [String: JSONValue] = [
            "minzoom": .number(Double(tiles.minZoom)), "maxzoom": .number(Double(tiles.maxZoom)),
        ]
        if let bounds = tiles.bounds {
            fields["bounds"] = .array([bounds.west, bounds.south, bounds.east, bounds.north].map(JSONValue.number))
        }
        if let attribution = tiles.attribution { fields["attribution"] = .string(attribution) }
        return fields
    }
}
