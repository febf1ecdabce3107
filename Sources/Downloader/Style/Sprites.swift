import PackStore

/// One sprite sheet of a style: `sprite` as a string (id `default`) or each `{id, url}` of an array.
public struct SpriteSheet: Equatable, Sendable {
    public let id: String
    /// The base URL, resolved against the style; the files add `.json`, `.png` and `@2x` to it.
    public let url: String

    /// The four files MapLibre stores for every sheet whatever the pack's pixel ratio (so a pack
    /// works on any screen): JSON and PNG at 1x, then at @2x. Each suffix goes before any query.
    public var resources: [PlannedResource] {
        [
            PlannedResource(url: file(".json"), kind: .spriteJSON),
            PlannedResource(url: file(".png"), kind: .spriteImage),
            PlannedResource(url: file("@2x.json"), kind: .spriteJSON),
            PlannedResource(url: file("@2x.png"), kind: .spriteImage),
        ]
    }

    private func file(_ suffix: String) -> String {
        let (head, query) = URLString.splitQuery(url)
        return head + suffix + query
    }

    /// The sheets a style's `sprite` value names (none for a missing or empty one).
    static func sheets(in value: JSONValue?, styleURL: String) throws -> [SpriteSheet] {
        switch value {
        case nil, .null?:
            return []
        case .string(let url)?:
            guard !url.isEmpty else { return [] }
            return [
                SpriteSheet(id: "default", url: try References.resolve(url, in: styleURL, field: "sprite"))
            ]
        case .array(let items)?:
            var sheets: [SpriteSheet] = []
            for (index, item) in items.enumerated() {
                let field = "sprite[\(index)]"
                guard let id = item["id"]?.string, !id.isEmpty, let url = item["url"]?.string else {
                    throw DownloadError.invalidField(
                        url: styleURL, field: field, reason: "must be an object with string id and url")
                }
                guard !sheets.contains(where: { $0.id == id }) else {
                    throw DownloadError.invalidField(
                        url: styleURL, field: field, reason: "duplicate id \"\(id)\"")
                }
                sheets.append(
                    SpriteSheet(id: id, url: try References.resolve(url, in: styleURL, field: field + ".url"))
                )
            }
            return sheets
        default:
            throw DownloadError.invalidField(
                url: styleURL, field: "sprite", reason: "must be a URL or an array of {id, url}")
        }
    }
}
