import Foundation
import Interchange
import PackFS
import PackStore

/// The PMTiles reader: the bytes as an archive file, imported as `packfs import DB FILE.pmtiles`
/// does (header, metadata, directories and leaves, every tile), then the pack walked as a mount
/// shows it. The same format code (PMTilesFormat) reads a `pmtiles://` source's ranges.
extension FuzzBodies {
    static func archive(_ data: Data) throws {
        let path = scratch.appendingPathComponent("fuzz.pmtiles").path
        let db = scratch.appendingPathComponent("archive.db").path
        for suffix in ["", "-wal", "-shm", "-journal"] { try? FileManager.default.removeItem(atPath: db + suffix) }
        guard FileManager.default.createFile(atPath: path, contents: data),
            let archive = try? PMTilesImport(path: path, name: "fuzz")
        else { return }
        let database = try OfflineDatabase.open(path: db, mode: .mount)
        defer { try? database.close() }
        guard let summary = try? archive.write(into: database) else {
            // A damaged archive leaves nothing behind: the import is one transaction.
            try check((try database.packs()).isEmpty, "a failed import left a pack")
            return
        }
        try check(try database.progress(of: summary.pack.id).counts.tiles == summary.tiles, "the import's tile count")
        try TreeVisit(filesystem: PackFilesystem(database: database, mountpoint: "/fuzz")).visit()
    }
}
