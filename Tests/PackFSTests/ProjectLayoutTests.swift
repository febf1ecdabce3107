import Foundation
import TestSupport
import XCTest

/// The checkout fits any file system: no two paths differ only by case (macOS's default file
/// system, which Package.swift lists, could not hold both; `Sources/PackFS` and the executable's
/// `Sources/packfs` once did).
final class ProjectLayoutTests: XCTestCase {
    func testNoTwoPathsDifferOnlyByCase() throws {
        let root = ProjectPaths.root.path
        var seen: [String: String] = [:]
        var collisions: [String] = []
        for top in ["Sources", "Tests", "scripts", "docs", "Fixtures", "mount-scripts"] {
            guard let walker = FileManager.default.enumerator(atPath: root + "/" + top) else { continue }
            for case let relative as String in walker {
                let path = top + "/" + relative
                if let other = seen.updateValue(path, forKey: path.lowercased()), other != path {
                    collisions.append("\(other) and \(path)")
                }
            }
        }
        XCTAssertGreaterThan(seen.count, 100, "the walk saw the checkout")
        XCTAssertEqual(collisions, [])
    }
}
