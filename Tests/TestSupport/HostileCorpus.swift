import Basics
import Foundation
import PackStore
import XCTest

/// One file of the hostile-input corpus (Fixtures/hostile), as its manifest describes it.
public struct HostileCase: CustomStringConvertible, Sendable {
    /// Path under Fixtures/hostile, e.g. `regions/bounds-lat-91.json`.
    public let file: String
    /// region, style, tilejson, geojson, sprite, glyph, database, name.
    public let kind: String
    /// What is wrong with it.
    public let wrong: String
    /// Words the error must hold, the field first; nil when the input must be accepted.
    public let expect: [String]?
    /// Every manifest field, for the kind-specific ones (role, encoding, refused, packs, ...).
    public let fields: [String: JSONValue]

    public var description: String { "\(file) (\(wrong))" }

    public var url: URL { HostileCorpus.root.appendingPathComponent(file) }

    /// The file name without its extensions (`json-gzip-bomb` of `json-gzip-bomb.json.gz`).
    public var stem: String { String(url.lastPathComponent.split(separator: ".").first ?? "") }

    public func data() throws -> Data { try Data(contentsOf: url) }

    /// The bytes with every `{base}` replaced by `base` (the bytes around it untouched, so
    /// invalid UTF-8 stays invalid).
    public func data(base: String) throws -> Data { HostileCorpus.replacing(Data("{base}".utf8), with: Data(base.utf8), in: try data()) }

    public func string(_ key: String) -> String? { fields[key]?.string }
    public func bool(_ key: String) -> Bool { fields[key]?.bool ?? false }
    public func strings(_ key: String) -> [String]? { fields[key]?.array?.compactMap(\.string) }
}

/// The corpus, read from its manifest.
public enum HostileCorpus {
    public static let root = ProjectPaths.fixtures.appendingPathComponent("hostile")

    /// Every case of `kind`, in manifest order.
    public static func cases(_ kind: String) throws -> [HostileCase] {
        let manifest = try JSONValue.parsing(Data(contentsOf: root.appendingPathComponent("manifest.json")))
        return (manifest["cases"]?.array ?? []).compactMap { entry in
            guard let object = entry.object, object["kind"]?.string == kind, let file = object["file"]?.string
            else { return nil }
            return HostileCase(
                file: file, kind: kind, wrong: object["wrong"]?.string ?? "",
                expect: object["expect"]?.array?.compactMap(\.string), fields: object)
        }
    }

    /// The database cases, the refused ones or the others, each copied into `directory` (tests open
    /// and check the copy, never the corpus's file), with the copy's path.
    public static func databaseCopies(refused: Bool, in directory: TemporaryDirectory) throws
        -> [(item: HostileCase, path: String)] {
        try cases("database").filter { $0.bool("refused") == refused }.map { item in
            let path = directory.path(item.url.lastPathComponent)
            try FileManager.default.copyItem(at: item.url, to: URL(fileURLWithPath: path))
            return (item, path)
        }
    }

    /// The inputs a fuzz target found (Fixtures/hostile/fuzz-findings/<target>/), each kept so a
    /// fix stays fixed.
    public static func findings(_ target: String) -> [URL] {
        let directory = root.appendingPathComponent("fuzz-findings").appendingPathComponent(target)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.filter { !$0.hasPrefix(".") && $0 != "README.md" }.sorted().map { directory.appendingPathComponent($0) }
    }

    static func replacing(_ target: Data, with replacement: Data, in data: Data) -> Data {
        var out = Data()
        var rest = data[...]
        while let found = rest.firstRange(of: target) {
            out += rest[..<found.lowerBound] + replacement
            rest = rest[found.upperBound...]
        }
        return out + rest
    }
}

/// Fails unless `message` holds each of `words` (a hostile input's error names its field).
public func assertMentions(
    _ message: String, _ words: [String], _ what: CustomStringConvertible, file: StaticString = #filePath,
    line: UInt = #line
) {
    for word in words where !message.contains(word) {
        XCTFail("\(what): the error \"\(message.prefix(400))\" does not mention \"\(word)\"", file: file, line: line)
    }
}
