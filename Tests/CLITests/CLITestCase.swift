import Basics
import Foundation
import PackStore
import TestSupport
import XCTest

/// Runs the built `packfs` executable as a user would and captures what it prints.
class CLITestCase: PackFSTestCase {
    var db: String { databasePath }

    typealias Outcome = Command.Outcome

    @discardableResult
    func packfs(_ arguments: String...) throws -> Outcome {
        try packfs(arguments)
    }

    func packfs(_ arguments: [String]) throws -> Outcome {
        try run(URL(fileURLWithPath: Packfs.path), arguments)
    }

    /// Runs `executable` to its end; stdout and stderr apart.
    func run(_ executable: URL, _ arguments: [String]) throws -> Outcome {
        try Command.runApart(executable.path, arguments)
    }

    /// Two packs sharing one tile, so removal and counts have something to show.
    func makeDatabase() throws {
        let database = try OfflineDatabase.open(path: db)
        let definition = RegionDefinition(
            styleURL: "http://127.0.0.1:8181/styles/bright.json",
            area: .bounds(Bounds(west: 24.93, south: 60.16, east: 24.96, north: 60.18)), minZoom: 0, maxZoom: 14)
        let a = try database.createPack(name: "helsinki", definition: definition, metadata: .object(["trip": .string("weekend")]))
        let b = try database.createPack(name: "other", definition: definition)
        try database.write { batch in
            let shared = try batch.putTile(TileKey(urlTemplate: "t", pixelRatio: 1, z: 1, x: 0, y: 0), data: .encoding(Data(count: 100)), headers: CacheHeaders())
            let own = try batch.putTile(TileKey(urlTemplate: "t", pixelRatio: 1, z: 1, x: 1, y: 0), data: .encoding(Data(count: 100)), headers: CacheHeaders())
            try batch.link(tile: shared, to: a.id)
            try batch.link(tile: own, to: a.id)
            try batch.link(tile: shared, to: b.id)
            try batch.setStatus(PackStatus(state: .complete, requiredResources: 2, requiredTiles: 2, requiredIsPrecise: true), of: a.id)
        }
        try database.close()
    }
}
