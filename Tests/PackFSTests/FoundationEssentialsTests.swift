import Foundation
import TestSupport
import XCTest

/// PackFS takes FoundationEssentials only: full Foundation brings ICU's locale data (30 MB of a
/// static binary) and PackFS uses no locale, calendar or collation. Tests may use Foundation
/// (XCTest does); the targets the binary is made of may not.
final class FoundationEssentialsTests: XCTestCase {
    /// Modules that are full Foundation or load it.
    static let refused = ["Foundation", "FoundationNetworking", "FoundationXML", "FoundationInternationalization"]

    func testNoSourceImportsFullFoundation() throws {
        let sources = ProjectPaths.root.appendingPathComponent("Sources").path
        let files = try XCTUnwrap(FileManager.default.subpathsOfDirectory(atPath: sources)).filter { $0.hasSuffix(".swift") }
        XCTAssertGreaterThan(files.count, 100, "the walk saw the sources")
        var offenders: [String] = []
        for file in files {
            let text = try String(contentsOfFile: sources + "/" + file, encoding: .utf8)
            for line in text.split(separator: "\n") where Self.importedModule(line).map(Self.refused.contains) == true {
                offenders.append("\(file): \(line)")
            }
        }
        XCTAssertEqual(offenders, [])
    }

    func testTheBinaryLinksNoFullFoundationAndNoICU() throws {
        let linked = try Command.run("/usr/bin/ldd", [Packfs.path]).text
        XCTAssertTrue(linked.contains("libc.so"), linked)
        for library in ["libFoundation.so", "libFoundationInternationalization", "_FoundationICU", "libicu"] {
            XCTAssertFalse(linked.contains(library), "packfs links \(library):\n\(linked)")
        }
    }

    func testTheCheckSeesEveryFormOfImport() {
        XCTAssertEqual(Self.importedModule("import Foundation"), "Foundation")
        XCTAssertEqual(Self.importedModule("@preconcurrency import Foundation"), "Foundation")
        XCTAssertEqual(Self.importedModule("  import struct Foundation.Date"), "Foundation")
        XCTAssertEqual(Self.importedModule("@_exported import FoundationNetworking"), "FoundationNetworking")
        XCTAssertEqual(Self.importedModule("import FoundationEssentials"), "FoundationEssentials")
        XCTAssertNil(Self.importedModule("// import Foundation"))
    }

    /// The module a line imports, nil when it imports none.
    static func importedModule(_ line: Substring) -> String? {
        var words = line.split(separator: " ").filter { !$0.hasPrefix("@") }
        guard words.first == "import" else { return nil }
        words.removeFirst()
        let kinds: Set<Substring> = ["struct", "class", "enum", "protocol", "typealias", "func", "let", "var"]
        if let first = words.first, kinds.contains(first) { words.removeFirst() }
        return words.first.map { String($0.split(separator: ".")[0]) }
    }
}
