import Basics
import PackStore

/// One sprite sheet of a style: `sprite` as a string (id `default`) or each `{id, url}` of an array.
public struct SpriteSheet: Equatable, Sendable {
    /// One of a sheet's files: its name in a pack's `sprites/` directory and its stored URL.
    public struct File: Equatable, Sendable {
        public let name: String
        public let url: String
        public let kind: ResourceKind

        public var resource: StyleResource { StyleResource(url: url, kind: kind) }
    }

    /// `default`, or the id the style gives the sheet (the mount shows `sprites/<id>.json`, escaped).
    public let id: String
    /// The base URL, resolved against the style; the files add `.json`, `.png` and `@2x` to it.
    public let url: String

    /// The four files MapLibre stores for every sheet, so a pack works on any screen: JSON and PNG
    /// at 1x, then @2x. Each suffix goes before any query; a fragment is dropped, as in MapLibre.
    public var files: [File] {
        [(".json", ResourceKind.spriteJSON), (".png", .spriteImage), ("@2x.json", .spriteJSON), ("@2x.png", .spriteImage)]
            .map { suffix, kind in
                let (head, query) = URLString.splitQuery(url)
                return File(name: FileName.escape(id) + suffix, url: head + suffix + query, kind: kind)
            }
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
            var ids = Set<String>()
            for (index, item) in items.enumerated() {
                let sheet = try sheet(item, field: "sprite[\(index)]", styleURL: styleURL)
                guard ids.insert(sheet.id).inserted else {
                    throw StyleError.invalidField(
                        url: styleURL, field: "sprite[\(index)]", reason: "duplicate id \"\(sheet.id)\"")
                }
                sheets.append(sheet)
            }
            return sheets
        default:
            throw StyleError.invalidField(
                url: styleURL, field: "sprite", reason: "must be a URL or an array of {id, url}")
        }
    }

    /// One `{id, url}` of a `sprite` array.
    private static func sheet(_ item: JSONValue, field: String, styleURL: String) throws -> SpriteSheet {
        guard let id = item["id"]?.string, !id.isEmpty, let url = item["url"]?.string else {
            throw StyleError.invalidField(url: styleURL, field: field, reason: "must be an object with string id and url")
        }
        try FileName.check(id, reserving: "@2x.json".utf8.count, field: field + ".id", document: styleURL)
        return SpriteSheet(id: id, url: try References.resolve(url, in: styleURL, field: field + ".url"))
    }
}
