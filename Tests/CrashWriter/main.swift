// packfs-crashwriter DB: writes numbered batches of tiles into one pack, one transaction each,
// and prints "committed N" after each commit, forever. A test kills it with SIGKILL at a random
// moment and checks that every batch it saw committed is in the database, intact.
//
// packfs-crashwriter DB switch TILES: stores a pack of TILES tiles (ETag "v0"), stages new bytes
// (ETag "v1") for every one of them as a refresh does, prints "staged", switches the pack to them in one transaction
// (PackStore's RefreshSwitch), prints "switched" and exits. A test kills it during the switch and
// checks that the pack is the old one or the new one, whole.
import Basics
import Foundation
import PackStore

let path = CommandLine.arguments[1]
let database = try OfflineDatabase.open(path: path, mode: .mount)
let definition = RegionDefinition(
    styleURL: "http://127.0.0.1/style.json",
    area: .bounds(Bounds(west: 0, south: 0, east: 1, north: 1)), minZoom: 0, maxZoom: 14)
let pack = try database.createPack(name: "crash", definition: definition)

/// Tile `x` of the pack: (z 14, x, 0), 4 KiB whose bytes depend on `version`.
func key(_ x: Int) -> TileKey { TileKey(urlTemplate: "http://127.0.0.1/{z}/{x}/{y}.pbf", pixelRatio: 1, z: 14, x: x, y: 0) }
func body(_ x: Int, version: Int) -> Data { bytes(times: x + 1, plus: version) }

/// 4 KiB, byte i = i * times + plus. Filled through a buffer pointer: `(0..<4096).map` in the
/// ThreadSanitizer build took most of the crash tests' time.
func bytes(times: Int, plus: Int) -> Data {
    var bytes = [UInt8](repeating: 0, count: 4096)
    bytes.withUnsafeMutableBufferPointer { buffer in
        for i in buffer.indices { buffer[i] = UInt8(truncatingIfNeeded: i &* times &+ plus) }
    }
    return Data(bytes)
}

func say(_ line: String) {
    // Unbuffered: the test must see every line written before the kill.
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

if CommandLine.arguments.count > 3, CommandLine.arguments[2] == "switch", let tiles = Int(CommandLine.arguments[3]) {
    try database.write { store in
        for x in 0..<tiles { try store.link(tile: try store.putTile(key(x), data: .encoding(body(x, version: 0)), headers: CacheHeaders(etag: "v0")), to: pack.id) }
    }
    let since = try database.requestRefresh(of: pack.id)
    try database.write(notBefore: since) { store in
        for x in 0..<tiles {
            try store.stageTile(
                key(x), data: .encoding(body(x, version: 1)), headers: CacheHeaders(etag: "v1"), contentSize: 4096, for: pack.id,
                since: since)
        }
    }
    say("staged")
    _ = try database.write(notBefore: since) { try $0.switchStaged(of: pack.id, since: since) }
    say("switched")
    exit(0)
}

var batch = 0
while true {
    try database.write { store in
        for i in 0..<200 {
            let key = TileKey(urlTemplate: "http://127.0.0.1/{z}/{x}/{y}.pbf", pixelRatio: 1, z: 14, x: batch, y: i)
            let body = bytes(times: batch + i + 1, plus: 0)
            let id = try store.putTile(key, data: .encoding(body), headers: CacheHeaders(etag: "b\(batch)"))
            try store.link(tile: id, to: pack.id)
        }
    }
    say("committed \(batch)")
    batch += 1
}
