import Foundation
import SQLiteDB
import TestSupport

@testable import Interchange

extension PackFSTestCase {
    /// An MBTiles file `temp/name` as the spec's typical statements make it (the writer's flat
    /// schema), written with plain SQL.
    func makeMBTiles(_ name: String, metadata: [String: String], tiles: [(Int, Int, Int, Data)]) throws -> String {
        let path = temp.path(name)
        let queue = try DatabaseQueue(path: path)
        try queue.write { db in
            try db.execute(sql: MBTilesWriter.schema)
            for (key, value) in metadata {
                try db.execute(sql: "INSERT INTO metadata VALUES (?, ?)", arguments: [key, value])
            }
            for (z, x, row, data) in tiles {
                try db.execute(sql: "INSERT INTO tiles VALUES (?, ?, ?, ?)", arguments: [z, x, row, data])
            }
        }
        try queue.close()
        return path
    }
}
