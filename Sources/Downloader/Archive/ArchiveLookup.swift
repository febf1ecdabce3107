import FoundationEssentials
import HTTP
import PMTilesFormat

/// Where the tiles of one batch lie in a remote archive: absent (stored as "no content"), inside the
/// opening request's bytes, or in one of a few merged range requests. Each tile's extent, from the
/// archive's directories, is checked to lie inside the tile data before any sum is taken.
public struct ArchiveLookup {
    /// One range request, and where each of its tiles lies in the answer.
    public struct Request {
        public var range: ByteRange
        public var members: [Slice]
    }

    /// A tile (by its index in the batch) at `start`, `length` bytes, in some bytes.
    public struct Slice: Equatable, Sendable {
        public var index: Int
        public var start: Int
        public var length: Int
    }

    public var absent: [Int] = []
    public var inOpening: [(index: Int, bytes: Data)] = []
    public var requests: [Request] = []
}

extension RemoteArchive {
    /// Bytes fetched for nothing, at most, against the bytes needed (`pmtiles extract`'s default).
    public static let overfetch = 0.05
    /// One request's bytes at most: a failed request is retried whole.
    public static let maxRange: UInt64 = 4 << 20

    /// Looks up each tile id of a batch (nil: a tile no PMTiles id names, absent) and plans the
    /// requests that bring the rest; throws, naming the tile, for an extent outside the tile data.
    public func lookUp(_ ids: [UInt64?]) throws -> ArchiveLookup {
        var lookup = ArchiveLookup()
        var found: [(index: Int, offset: UInt64, length: UInt64)] = []
        for (index, id) in ids.enumerated() {
            guard let id, let entry = try tileEntry(for: id) else {
                lookup.absent.append(index)
                continue
            }
            let length = UInt64(entry.length)
            if let bytes = openingBytes(tileDataOffset: entry.offset, length: length) {
                lookup.inOpening.append((index, bytes))
            } else {
                found.append((index, entry.offset, length))
            }
        }
        let groups = RangeMerger.merge(found.map { ($0.offset, $0.length) }, overfetch: Self.overfetch, maxLength: Self.maxRange)
        lookup.requests = try groups.map { try request(for: $0, found) }
        return lookup
    }

    /// A merged group as a request of the archive's bytes. Its members lie inside the tile data,
    /// so the group does too (checked all the same: a sum is only taken once it is known to fit).
    private func request(for group: RangeMerger.Group, _ found: [(index: Int, offset: UInt64, length: UInt64)]) throws
        -> ArchiveLookup.Request
    {
        guard let part = header.tileData.part(at: group.offset, length: group.length) else {
            throw failure("bytes \(group.offset)+\(group.length) lie outside the tile data")
        }
        let members = group.members.map { member in
            let tile = found[member]
            // offset - group.offset <= group.length <= the tile data's length < 2^63.
            return ArchiveLookup.Slice(index: tile.index, start: Int(tile.offset - group.offset), length: Int(tile.length))
        }
        return ArchiveLookup.Request(range: ByteRange(offset: part.offset, length: part.length, ifMatch: etag), members: members)
    }
}
