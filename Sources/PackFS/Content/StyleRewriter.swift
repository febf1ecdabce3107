import Foundation
import PackStore
import StyleModel

/// The pack's stored style made to render from the mount with no network: each tiled source
/// inlined (its tiles' `minzoom`, `maxzoom`, `bounds` and `attribution` as StyleModel read them
/// from the style over the TileJSON; no `url`), and every URL (`tiles`, a GeoJSON source's
/// `data`, an image source's `url`, `glyphs`, `sprite`) pointing at `file://` paths of the pack's
/// directory. Tile paths number rows XYZ whatever the source's scheme, so the rewritten sources
/// are XYZ.
struct StyleRewriter {
    /// `file://MOUNTPOINT/packs/<name>`, percent-encoded (MapLibre decodes file paths).
    let base: String

    init(mountpoint: String, packName: String) {
        base = Self.fileURL(path: mountpoint + "/packs/" + packName)
    }

    /// A `file://` URL for an absolute path, each byte MapLibre's file source would misread
    /// percent-encoded (it decodes the path before opening it); `{tokens}` stay as written.
    static func fileURL(path: String) -> String {
        "file://" + Tokens.percentEncode(path, keeping: Set("/{}".utf8))
    }

    /// `sources/<id>/` of `source` (its escaped name, encoded again for the URL).
    private func directory(_ source: PackLayout.Source) -> String {
        "\(base)/sources/\(Tokens.percentEncode(source.declared.directoryName))/"
    }

    func tilesTemplate(_ source: PackLayout.Source) -> String {
        directory(source) + "{z}/{x}/{y}.\(source.fileExtension)"
    }

    /// The rewritten style, compact JSON; nil when the pack has no style the model reads.
    func style(_ layout: PackLayout) -> Data? {
        guard var style = layout.style?.members else { return nil }
        var sources = style["sources"]?.object ?? [:]
        for source in layout.sources {
            sources[source.id] = .object(rewritten(source))
        }
        style["sources"] = .object(sources)
        if layout.style?.glyphs != nil { style["glyphs"] = .string(base + "/glyphs/{fontstack}/{range}.pbf") }
        switch style["sprite"] {
        case .string?:
            style["sprite"] = .string(base + "/sprites/default")
        case .array?:
            style["sprite"] = .array(
                (layout.style?.sprites ?? []).map {
                    .object(["id": .string($0.id), "url": .string(base + "/sprites/" + Tokens.percentEncode(FileName.escape($0.id)))])
                })
        default: break
        }
        return Data(JSONValue.object(style).compactText.utf8)
    }

    /// A source object with everything it names in the mount.
    func rewritten(_ source: PackLayout.Source) -> [String: JSONValue] {
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
    func tileJSON(_ source: PackLayout.Source) -> Data {
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
