// packfs-crashwriter DB: writes numbered batches of tiles into one pack, one transaction each,
// and prints "committed N" after each commit, forever. A test kills it with SIGKILL at a random
// moment and checks that every batch it saw committed is in the database, intact.
import Foundation
import PackStore

let path = CommandLine.arguments[1]
let database = try OfflineDatabase.open(path: path, mode: .session)
let definition = RegionDefinition(
    styleURL: "http://127.0.0.1/style.json",
    area: .bounds(Bounds(west: 0, south: 0, east: 1, north: 1)), minZoom: 0, maxZoom: 14)
let pack = try database.createPack(name: "crash", definition: definition)
var batch = 0
while true {
    try database.write { store in
        for i in 0..<200 {
            let key = TileKey(urlTemplate: "http://127.0.0.1/{z}/{x}/{y}.pbf", pixelRatio: 1, z: 14, x: batch, y: i)
            let body = Data((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* (batch + i + 1)) })
            let id = try store.putTile(key, data: .encoding(body), headers: CacheHeaders(etag: "b\(batch)"))
            try store.link(tile: id, to: pack.id)
        }
    }
    // Unbuffered: the test must see every line written before the kill.
    FileHandle.standardOutput.write(Data("committed \(batch)\n".utf8))
    batch += 1
}
