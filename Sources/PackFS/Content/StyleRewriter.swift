import Foundation
import PackStore

/// The pack's stored style made to render from the mount with no network: each tiled source
/// inlined (its TileJSON's `tiles`, `minzoom`, `maxzoom`, `bounds`, `attribution`; no `url`),
/// and `tiles`, `glyphs` and `sprite` pointing at `file://` paths of the pack's directory. Tile
/// paths number rows XYZ whatever the source's scheme, so the rewritten sources are XYZ.
struct StyleRewriter {
    /// `file://MOUNTPOINT/packs/<name>`, percent-encoded (MapLibre decodes file paths).
    let base: String

    init(mountpoint: String, packName: String) {
        base = URLText.fileURL(path: mountpoint + "/packs/" + packName)
    }

    func tilesTemplate(_ source: PackLayout.Source) -> String {
        "\(base)/sources/\(URLText.percentEncode(source.id))/{z}/{x}/{y}.\(source.fileExtension)"
    }

    /// The rewritten style, compact JSON; nil when the pack has no style stored yet.
    func style(_ layout: PackLayout) -> Data? {
        guard var style = layout.style?.object else { return nil }
        var sources = style["sources"]?.object ?? [:]
        for source in layout.sources {
            sources[source.id] = .object(inlined(source))
        }
        style["sources"] = .object(sources)
        if layout.glyphs != nil { style["glyphs"] = .string(base + "/glyphs/{fontstack}/{range}.pbf") }
        switch style["sprite"] {
        case .string?:
            style["sprite"] = .string(base + "/sprites/default")
        case .array?:
            style["sprite"] = .array(
                layout.sprites.map {
                    .object(["id": .string($0.id), "url": .string(base + "/sprites/" + URLText.percentEncode($0.id))])
                })
        default: break
        }
        return Data(JSONValue.object(style).compactText.utf8)
    }

    /// A source object with its tiles in the mount.
    func inlined(_ source: PackLayout.Source) -> [String: JSONValue] {
        var fields = source.fields
        guard source.columns != nil else { return fields }
        fields["tiles"] = .array([.string(tilesTemplate(source))])
        fields["scheme"] = nil
        return fields
    }

    /// `tiles.json` of a source the style lists inline (there is no stored TileJSON to show).
    func tileJSON(_ source: PackLayout.Source) -> Data {
        var fields: [String: JSONValue] = ["tilejson": .string("3.0.0")]
        for key in PackLayout.inlinedKeys { fields[key] = source.fields[key] }
        fields["tiles"] = source.columns == nil ? nil : .array([.string(tilesTemplate(source))])
        fields["scheme"] = nil
        return Data(JSONValue.object(fields).compactText.utf8)
    }
}
