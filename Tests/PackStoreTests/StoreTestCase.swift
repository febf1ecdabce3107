import Basics
import Foundation
import PackStore
import SQLiteDB
import TestSupport
import XCTest

/// Base of the store tests: a database path in the test's directory, opened by each test itself.
class StoreTestCase: PackFSTestCase {
    var path: String { temp.path("offline.db") }

    /// A raw connection for checks that must not go through PackStore.
    func raw(_ path: String? = nil) throws -> DatabaseQueue {
        try DatabaseQueue(path: path ?? self.path)
    }

    func sampleDefinition(style: String = "http://127.0.0.1:8181/styles/bright.json") -> RegionDefinition {
        RegionDefinition(
            styleURL: style, area: .bounds(Bounds(west: 24.93, south: 60.16, east: 24.96, north: 60.18)),
            minZoom: 0, maxZoom: 14)
    }

    func tileKey(_ z: Int, _ x: Int, _ y: Int, template: String = "http://h/{z}/{x}/{y}.pbf") -> TileKey {
        TileKey(urlTemplate: template, pixelRatio: 1, z: z, x: x, y: y)
    }

    /// Bytes that do not compress (so stored size == raw size, predictable for limits).
    func noise(_ count: Int, seed: UInt64) -> Data {
        var state = seed &+ 0x9E37_79B9_7F4A_7C15
        return Data((0..<count).map { _ in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return UInt8(truncatingIfNeeded: state >> 33)
        })
    }

    func sha(_ path: String) throws -> Data {
        // Content checksum without extra dependencies: the bytes themselves, compared whole.
        try Data(contentsOf: URL(fileURLWithPath: path))
    }
}
