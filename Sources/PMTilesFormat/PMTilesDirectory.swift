import FoundationEssentials

/// One directory entry (spec section 4.1): `runLength` tiles from `tileID` on, all with the content at `offset` in the
/// tile data; or, with `runLength` 0, a leaf directory, first tile `tileID`, at `offset` in the leaf directories.
public struct PMTilesEntry: Equatable, Sendable {
    public var tileID: UInt64
    public var offset: UInt64
    public var length: UInt32
    public var runLength: UInt32

    public init(tileID: UInt64, offset: UInt64, length: UInt32, runLength: UInt32) {
        self.tileID = tileID
        self.offset = offset
        self.length = length
        self.runLength = runLength
    }

    public var isLeaf: Bool { runLength == 0 }
}

/// A directory's bytes before internal compression (spec section 4.2): the entry count, then one column at a time, each
/// value a varint: tile ids as differences from the previous one, run lengths, lengths, and offsets as offset + 1, or 0
/// when the entry starts where the previous one ended (so a clustered directory's offsets are almost all one byte).
public enum PMTilesDirectory {
    public static func encode(_ entries: [PMTilesEntry]) -> Data {
        var out = Data()
        out.reserveCapacity(entries.count * 5 + 10)
        out.appendVarint(UInt64(entries.count))
        var previousID: UInt64 = 0
        for entry in entries {
            out.appendVarint(entry.tileID - previousID)
            previousID = entry.tileID
        }
        for entry in entries { out.appendVarint(UInt64(entry.runLength)) }
        for entry in entries { out.appendVarint(UInt64(entry.length)) }
        var next: UInt64?
        for entry in entries {
            out.appendVarint(entry.offset == next ? 0 : entry.offset + 1)
            next = entry.offset + UInt64(entry.length)
        }
        return out
    }

    /// Decodes a directory from a file, each value checked before use: damage is an error naming what is wrong.
    public static func decode(_ data: Data) throws -> [PMTilesEntry] {
        var reader = VarintReader(data)
        let count = try reader.next()
        // Each entry takes at least one byte in each of the four columns.
        guard count <= UInt64(reader.remaining / 4) else {
            throw PMTilesFormatError.malformed("a directory of \(count) entries in \(reader.remaining) bytes")
        }
        var entries = [PMTilesEntry](repeating: PMTilesEntry(tileID: 0, offset: 0, length: 0, runLength: 0), count: Int(count))
        var tileID: UInt64 = 0
        for index in entries.indices {
            let (sum, overflow) = tileID.addingReportingOverflow(try reader.next())
            guard !overflow else { throw PMTilesFormatError.malformed("directory entry \(index): tile id past 64 bits") }
            tileID = sum
            entries[index].tileID = tileID
        }
        for index in entries.indices { entries[index].runLength = try narrow(reader.next(), "run length", index) }
        for index in entries.indices {
            entries[index].length = try narrow(reader.next(), "length", index)
            guard entries[index].length > 0 else { throw PMTilesFormatError.malformed("directory entry \(index): length 0") }
        }
        try decodeOffsets(&entries, &reader)
        return entries
    }

    private static func decodeOffsets(_ entries: inout [PMTilesEntry], _ reader: inout VarintReader) throws {
        for index in entries.indices {
            let value = try reader.next()
            if value > 0 {
                entries[index].offset = value - 1
                continue
            }
            guard index > 0 else { throw PMTilesFormatError.malformed("directory entry 0: offset 0, which means \"after the previous entry\"") }
            let previous = entries[index - 1]
            let (end, overflow) = previous.offset.addingReportingOverflow(UInt64(previous.length))
            guard !overflow else { throw PMTilesFormatError.malformed("directory entry \(index): offset past 64 bits") }
            entries[index].offset = end
        }
    }

    private static func narrow(_ value: UInt64, _ field: String, _ index: Int) throws -> UInt32 {
        guard let narrow = UInt32(exactly: value) else {
            throw PMTilesFormatError.malformed("directory entry \(index): \(field) \(value) exceeds 32 bits")
        }
        return narrow
    }
}
