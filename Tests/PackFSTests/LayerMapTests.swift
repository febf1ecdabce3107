import Foundation
import TestSupport
import XCTest

/// docs/internals.md opens with its code's layout, and that with the layer map: each library target
/// of Sources/, what it is, and the targets it depends on. It must say what Package.swift says: a target
/// added, dropped or given another dependency there fails here until the map says so too.
final class LayerMapTests: XCTestCase {
    func testTheLayerMapMatchesPackageSwift() throws {
        let package = try String(contentsOf: ProjectPaths.root.appendingPathComponent("Package.swift"), encoding: .utf8)
        let internals = try String(contentsOf: ProjectPaths.root.appendingPathComponent("docs/internals.md"), encoding: .utf8)
        let targets = try Self.targets(package)
        XCTAssertGreaterThan(targets.count, 10, "Package.swift's targets were read")
        XCTAssertEqual(try Self.map(internals), targets)
        let firstSection = internals.split(separator: "\n").first { $0.hasPrefix("## ") }
        XCTAssertEqual(firstSection, "## The code's layout", "internals.md opens with the layer map")
    }

    func testTheReadersSeeADifference() throws {
        let package = """
            .systemLibrary(name: "CZlib"),
            .target(name: "A", dependencies: ["CZlib"]),
            // a comment "Z"
            .target(name: "B", dependencies: [
                "A", .product(name: "P", package: "p"),
            ]),
            .target(name: "T", dependencies: ["A"], path: "Tests/T"),
            """
        XCTAssertEqual(try Self.targets(package), ["A": [], "B": ["A", "P"]])
        let doc = "## The code's layout\n\nText.\n\n```\nA   what A is\nB   what B is   -> A,\n                   P\n```\n"
        XCTAssertEqual(try Self.map(doc), ["A": [], "B": ["A", "P"]])
    }

    /// Library and executable targets under Sources/ (no `path:`) and what they depend on,
    /// system libraries left out (the map leaves the shims out).
    static func targets(_ package: String) throws -> [String: Set<String>] {
        let code = package.split(separator: "\n").map { line in
            line.range(of: "//").map { String(line[..<$0.lowerBound]) } ?? String(line)
        }.joined(separator: "\n")
        let system = Set(try matches(#"\.systemLibrary\(\s*name:\s*"([^"]+)""#, in: code).map { $0[0] })
        var targets: [String: Set<String>] = [:]
        let declaration = #"\.(?:target|executableTarget)\(\s*name:\s*"([^"]+)",\s*dependencies:\s*\[([^\]]*)\]\s*(,\s*path:)?"#
        for match in try matches(declaration, in: code) {
            // A target with a path of its own lives outside Sources/ (tests, fuzzing, tools).
            guard match[2].isEmpty else { continue }
            let list = match[1].replacingOccurrences(of: #"package:\s*"[^"]*""#, with: "", options: .regularExpression)
            let names = try matches(#""([^"]+)""#, in: list).map { $0[0] }
            let dependencies = names.filter { !system.contains($0) && !$0.contains("-") }
            targets[match[0]] = Set(dependencies)
        }
        return targets
    }

    /// The map: the first fenced block after "The code's layout"; a line that starts with a
    /// name is a target, `-> A, B` its dependencies, continued on indented lines.
    static func map(_ document: String) throws -> [String: Set<String>] {
        let section = try XCTUnwrap(document.range(of: "## The code's layout"), "internals.md has the code's layout")
        let after = document[section.upperBound...]
        let open = try XCTUnwrap(after.range(of: "```\n"))
        let close = try XCTUnwrap(after[open.upperBound...].range(of: "```"))
        var targets: [String: Set<String>] = [:]
        var current: String?
        for line in after[open.upperBound..<close.lowerBound].split(separator: "\n") {
            if let first = line.first, !first.isWhitespace {
                current = String(line.prefix { !$0.isWhitespace })
            }
            guard let current else { continue }
            let arrow = line.range(of: "->").map { line[$0.upperBound...] } ?? (line.first?.isWhitespace == true ? line[...] : "")
            let names = arrow.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            targets[current, default: []].formUnion(names)
        }
        return targets
    }

    /// Each match's capture groups.
    static func matches(_ pattern: String, in text: String) throws -> [[String]] {
        let regex = try NSRegularExpression(pattern: pattern, options: [.dotMatchesLineSeparators])
        return regex.matches(in: text, range: NSRange(text.startIndex..., in: text)).map { match in
            (1..<match.numberOfRanges).map { index in Range(match.range(at: index), in: text).map { String(text[$0]) } ?? "" }
        }
    }
}
