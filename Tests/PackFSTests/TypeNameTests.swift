import Foundation
import TestSupport
import XCTest

/// One name, one meaning: no two top-level types in Sources/ share a name (two `Lock`s, two
/// `RetryPolicy`s and two `Inflater`s once did, one shadowing the other), and no type is named
/// `Session` (it meant five things; libfuse's `fuse_session` keeps the word).
final class TypeNameTests: XCTestCase {
    static let sources = ProjectPaths.root.appendingPathComponent("Sources")

    /// A declaration at the start of a line: a top-level type (nested ones are qualified by theirs).
    static let declaration = try? NSRegularExpression(
        pattern: #"^(?:(?:public|internal|private|fileprivate|package|final|indirect|nonisolated)\s+)*"#
            + #"(?:struct|class|enum|actor|protocol|typealias)\s+([A-Za-z_][A-Za-z0-9_]*)"#,
        options: [.anchorsMatchLines])

    func testNoTopLevelTypeNameIsDefinedTwice() throws {
        var places: [String: [String]] = [:]
        for path in try Self.swiftFiles() {
            let text = try String(contentsOfFile: path, encoding: .utf8)
            for name in try Self.declaredTypes(in: text) {
                places[name, default: []].append(String(path.dropFirst(Self.sources.path.count + 1)))
            }
        }
        XCTAssertGreaterThan(places.count, 300, "the sources' types were read")
        let repeated = places.filter { $0.value.count > 1 }.map { "\($0.key): \($0.value.joined(separator: ", "))" }
        XCTAssertEqual(repeated.sorted(), [])
        XCTAssertNil(places["Session"], "Session names libfuse's fuse_session only")
    }

    func testTheScanFindsARepeatedName() throws {
        let text = "public final class Lock {}\nstruct Other {\n    struct Lock {}\n}\nenum Lock {}\n"
        XCTAssertEqual(try Self.declaredTypes(in: text), ["Lock", "Other", "Lock"])
    }

    static func declaredTypes(in text: String) throws -> [String] {
        let regex = try XCTUnwrap(declaration)
        let range = NSRange(text.startIndex..., in: text)
        return regex.matches(in: text, range: range).compactMap { match in
            Range(match.range(at: 1), in: text).map { String(text[$0]) }
        }
    }

    static func swiftFiles() throws -> [String] {
        let enumerator = try XCTUnwrap(FileManager.default.enumerator(atPath: sources.path))
        return enumerator.compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") }
            .map { sources.appendingPathComponent($0).path }
    }
}
