import Basics
import FoundationEssentials

/// One pack: a row of `regions` with the name PackFS shows for it.
public struct Pack: Equatable, Sendable {
    public var id: RegionID
    /// The name in `description.name`, or `region-<id>` for packs an app made without one.
    public var name: String
    /// `regions.definition` as stored.
    public var definitionText: String
    /// The decoded definition; nil when an app stored something PackFS cannot read.
    public var definition: RegionDefinition?
    /// `regions.description` as stored (PackFS writes a JSON object; apps write any bytes).
    public var description: Data?

    /// The region file's `metadata`, kept in the description.
    public var metadata: JSONValue? { description.flatMap(JSONValue.parse)?["metadata"] }

    /// How the pack stores the tiles it downloads, kept in the description (`compressed` when it says nothing).
    public var tileStorage: TileStorage { TileStorage.recorded(in: description) }
}

/// The JSON object PackFS writes into `regions.description`: `{"name":...,"metadata":...}`, then `tile_storage` when
/// not the default, and an app's other keys.
enum PackDescription {
    /// The description's value for `storage`: nil (no key) for the default, so packs that never chose keep theirs as is.
    static func recorded(_ storage: TileStorage) -> JSONValue? {
        storage == .compressed ? nil : .string(storage.rawValue)
    }

    static func encode(_ fields: [String: JSONValue]) -> Data {
        var ordered: [(key: String, value: JSONValue)] = []
        for key in ["name", "metadata"] { if let value = fields[key] { ordered.append((key, value)) } }
        for (key, value) in fields.sorted(by: { $0.key < $1.key }) where key != "name" && key != "metadata" {
            ordered.append((key, value))
        }
        var out = ""
        JSONWriter(decimalPoints: false).writeObject(ordered, into: &out)
        return Data(out.utf8)
    }

    /// An existing description's fields; an app's non-JSON one is kept as text under `app_description`, never lost.
    static func fields(of description: Data?) -> [String: JSONValue] {
        guard let description, !description.isEmpty else { return [:] }
        if let object = JSONValue.parse(description)?.object { return object }
        let text = String(data: description, encoding: .utf8) ?? description.base64EncodedString()
        return ["app_description": .string(text)]
    }

    static func name(in description: Data?) -> String? {
        guard let description, let name = JSONValue.parse(description)?["name"]?.string,
            PackName.isValid(name)
        else { return nil }
        return name
    }
}
