import FoundationEssentials
import StyleModel

/// The one streaming pass of a diff: both sides in martin's order, merged as two sorted lists into
/// deleted (NULL data), added and changed places. Each side is hashed as it passes, and so are the rows
/// written, as martin hashes a patch (md5_concat skips NULL: a deleted tile adds only its place).
struct TileMerge {
    private(set) var old: SideTally
    private(set) var new: SideTally
    private(set) var patch = TileSetHash()
    private(set) var changed = 0
    private(set) var added = 0
    private(set) var deleted = 0

    init(old: String, new: String) {
        self.old = SideTally(label: old)
        self.new = SideTally(label: new)
    }

    mutating func run(
        old oldTiles: inout TileStream, new newTiles: inout TileStream, into inserter: inout MBTilesWriter.TileInserter
    ) throws {
        var oldTile = try old.next(from: &oldTiles)
        var newTile = try new.next(from: &newTiles)
        // The next place is the lower of the two: only OLD's, only NEW's, or both's.
        while oldTile != nil || newTile != nil {
            if let before = oldTile, newTile.map({ before.place < $0.place }) ?? true {
                try write(before.place, nil, into: &inserter)
                deleted += 1
                oldTile = try old.next(from: &oldTiles)
            } else if let after = newTile, oldTile.map({ after.place < $0.place }) ?? true {
                try write(after.place, after.data, into: &inserter)
                added += 1
                newTile = try new.next(from: &newTiles)
            } else if let before = oldTile, let after = newTile {
                if before.data != after.data {
                    try write(after.place, after.data, into: &inserter)
                    changed += 1
                }
                oldTile = try old.next(from: &oldTiles)
                newTile = try new.next(from: &newTiles)
            }
        }
    }

    private mutating func write(_ place: TilePlace, _ data: Data?, into inserter: inout MBTilesWriter.TileInserter) throws {
        try inserter.insert(z: place.z, column: place.column, row: place.row, data: data)
        patch.add(z: place.z, column: place.column, tmsRow: place.row, data: data ?? Data())
    }
}

/// One side's tiles as they pass: hashed, counted, zooms noted, order checked (a `tiles` table without the spec's
/// unique index may hold a place twice, and a patch could not say which it replaces).
struct SideTally {
    let label: String
    private var hash = TileSetHash()
    private var census = TileCensus()
    private var last: TilePlace?

    init(label: String) { self.label = label }

    mutating func next(from stream: inout TileStream) throws -> DiffTile? {
        guard let tile = try stream.next() else { return nil }
        if let last, !(last < tile.place) {
            let detail = last == tile.place
                ? "tile \(tile.place) is there twice: a diff needs one tile per place"
                : "tile \(tile.place) came after \(last): its tiles are not in order"
            throw InterchangeError.damaged(label, detail: detail)
        }
        last = tile.place
        hash.add(z: tile.place.z, column: tile.place.column, tmsRow: tile.place.row, data: tile.data)
        census.add(tile.place.z)
        return tile
    }

    var walk: SideWalk { SideWalk(hash: hash.hex, tiles: hash.tiles, zooms: census.zooms) }
}
