import Foundation
import TestSupport
import XCTest

/// The documentation's links hold: every relative link in README.md and docs/*.md names a file
/// that exists, and a `#fragment` names a heading of that file (GitHub's anchors: lowercase,
/// punctuation dropped, spaces as hyphens, `-1`, `-2`... for repeats). The README stays a front
/// page: at most 250 lines, every page of docs/ linked from it.
final class DocumentationLinkTests: XCTestCase {
    static let root = ProjectPaths.root

    static var pages: [URL] {
        let docs = root.appendingPathComponent("docs")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: docs.path)) ?? []
        return [root.appendingPathComponent("README.md")]
            + names.filter { $0.hasSuffix(".md") }.sorted().map { docs.appendingPathComponent($0) }
    }

    func testEveryRelativeLinkNamesAFileAndAHeadingThatExist() throws {
        var broken: [String] = []
        var checked = 0
        for page in Self.pages {
            let text = try String(contentsOf: page, encoding: .utf8)
            for link in Self.links(in: text) where !link.contains("://") && !link.hasPrefix("mailto:") {
                checked += 1
                let parts = link.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
                let target = parts[0].isEmpty ? page : page.deletingLastPathComponent().appendingPathComponent(parts[0])
                guard FileManager.default.fileExists(atPath: target.path) else {
                    broken.append("\(page.lastPathComponent): \(link): no such file")
                    continue
                }
                if parts.count == 2, target.pathExtension == "md" {
                    let anchors = Self.anchors(in: try String(contentsOf: target, encoding: .utf8))
                    if !anchors.contains(parts[1]) { broken.append("\(page.lastPathComponent): \(link): no such heading") }
                }
            }
        }
        XCTAssertGreaterThan(Self.pages.count, 8, "README.md and the docs/ pages")
        XCTAssertGreaterThan(checked, 20, "links were checked")
        XCTAssertEqual(broken, [])
    }

    func testTheReadmeIsAFrontPageThatLinksEveryPage() throws {
        let readme = try String(contentsOf: Self.root.appendingPathComponent("README.md"), encoding: .utf8)
        let lines = readme.split(separator: "\n", omittingEmptySubsequences: false).count - (readme.hasSuffix("\n") ? 1 : 0)
        XCTAssertLessThanOrEqual(lines, 250, "README.md is \(lines) lines")
        let linked = Set(Self.links(in: readme).map { String($0.split(separator: "#")[0]) })
        for page in Self.pages.dropFirst() {
            XCTAssertTrue(linked.contains("docs/" + page.lastPathComponent), "README.md links no docs/\(page.lastPathComponent)")
        }
    }

    /// The targets of `[text](target)` and `![alt](target)` outside fenced code blocks.
    static func links(in markdown: String) -> [String] {
        var found: [String] = []
        var fenced = false
        for line in markdown.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("```") { fenced.toggle() }
            if fenced { continue }
            var rest = line[...]
            while let open = rest.range(of: "](") {
                let tail = rest[open.upperBound...]
                guard let close = tail.firstIndex(of: ")") else { break }
                found.append(String(tail[..<close]))
                rest = tail[close...]
            }
        }
        return found
    }

    /// GitHub's anchor of every heading of `markdown`, repeats numbered.
    static func anchors(in markdown: String) -> Set<String> {
        var seen: [String: Int] = [:]
        var anchors: Set<String> = []
        var fenced = false
        for line in markdown.split(separator: "\n") {
            if line.hasPrefix("```") { fenced.toggle() }
            guard !fenced, line.hasPrefix("#") else { continue }
            let title = line.drop { $0 == "#" }.trimmingCharacters(in: .whitespaces)
            let slug = String(title.lowercased().compactMap { character -> Character? in
                if character == " " { return "-" }
                return character.isLetter || character.isNumber || character == "-" || character == "_" ? character : nil
            })
            let repeats = seen[slug, default: 0]
            seen[slug] = repeats + 1
            anchors.insert(repeats == 0 ? slug : "\(slug)-\(repeats)")
        }
        return anchors
    }
}
