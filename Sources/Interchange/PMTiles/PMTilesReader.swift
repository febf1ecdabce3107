import Basics
import FoundationEssentials
import PMTilesFormat
import PackStore

/// Reads a PMTiles v3 archive from a file. The file is outside data: sections must lie inside it, entries inside their
/// section, directories at most `maxDepth` deep, else an error names the file, never a trap. Read through a file
/// handle, not a memory map: a file cut short while mapped would be a SIGBUS.
public final class PMTilesReader {
    /// Root, leaves, leaves of leaves: what the reference readers follow (the spec discourages more).
    static let maxDepth = 3

    public let path: String
    public let header: PMTilesHeader
    private let handle: PosixFile
    private let fileSize: UInt64
    private var name: String { PathText.lastComponent(path) }

    public init(path: String) throws {
        self.path = path
        let name = PathText.lastComponent(path)
        guard let handle = try? PosixFile(path: path, access: .read) else { throw InterchangeError.cannotRead(path, reason: nil) }
        self.handle = handle
        do {
            fileSize = try handle.seekToEnd()
            header = try PMTilesHeader(decoding: handle.read(at: 0, count: PMTilesHeader.size))
            for (section, what) in header.sections { try Self.check(section, what, fileSize: fileSize, name: name) }
            guard [.gzip, .none, .unknown].contains(header.internalCompression) else {
                throw InterchangeError.unsupported(
                    name, detail: "internal compression \(header.internalCompression) is not supported (gzip or none)")
            }
        } catch {
            handle.close()
            throw Self.naming(name, error)
        }
    }

    /// `error` as the reader reports it: bytes that break the spec make the file `damaged`.
    private static func naming(_ name: String, _ error: Error) -> Error {
        switch error {
        case PMTilesFormatError.malformed(let detail):
            return InterchangeError.damaged(name, detail: detail)
        default: return error
        }
    }

    private static func check(_ section: PMTilesHeader.Section, _ what: String, fileSize: UInt64, name: String) throws {
        guard let end = section.end, end <= fileSize else {
            throw InterchangeError.damaged(
                name, detail: "the \(what) (\(section.length) bytes at \(section.offset)) lies past the end of the file (\(fileSize) bytes)")
        }
    }

    /// The metadata object (an empty section reads as `{}`).
    public func metadata() throws -> JSONValue {
        guard header.metadata.length > 0 else { return .object([:]) }
        let bytes = try internalBytes(header.metadata, what: "metadata")
        guard let value = JSONValue.parse(bytes), value.object != nil else {
            throw InterchangeError.damaged(name, detail: "the metadata is not a JSON object")
        }
        return value
    }

    public func rootEntries() throws -> [PMTilesEntry] {
        try directory(header.rootDirectory, what: "root directory")
    }

    /// The entries of the leaf directory a root entry points at.
    public func leafEntries(_ pointer: PMTilesEntry) throws -> [PMTilesEntry] {
        try directory(leafSection(pointer), what: "leaf directory at \(pointer.offset)")
    }

    /// Every tile in tile id order, a run's content read once for all its tiles.
    public func forEachTile(_ body: (_ z: Int, _ x: Int, _ y: Int, _ data: Data) throws -> Void) throws {
        do {
            try walk(rootEntries(), depth: 1, body)
        } catch {
            throw Self.naming(name, error)
        }
    }

    private func walk(_ entries: [PMTilesEntry], depth: Int, _ body: (Int, Int, Int, Data) throws -> Void) throws {
        for entry in entries {
            if entry.isLeaf {
                guard depth < Self.maxDepth else {
                    throw InterchangeError.damaged(
                        name, detail: "leaf directories nest deeper than \(Self.maxDepth) levels")
                }
                try walk(leafEntries(entry), depth: depth + 1, body)
                continue
            }
            let data = try tileBytes(entry)
            for step in 0..<UInt64(entry.runLength) {
                let (id, overflow) = entry.tileID.addingReportingOverflow(step)
                let tile = try PMTilesTileID(rawValue: overflow ? UInt64.max : id).tile()
                try body(tile.z, tile.x, tile.y, data)
            }
        }
    }

    func tileBytes(_ entry: PMTilesEntry) throws -> Data {
        try bytes(in: header.tileData, entry.offset, UInt64(entry.length), what: "tile \(PMTilesTileID(rawValue: entry.tileID).name)")
    }

    private func leafSection(_ pointer: PMTilesEntry) throws -> PMTilesHeader.Section {
        guard let section = header.leafDirectories.part(at: pointer.offset, length: UInt64(pointer.length)) else {
            throw InterchangeError.damaged(
                name, detail: "a leaf directory (\(pointer.length) bytes at \(pointer.offset)) lies outside the leaf directories")
        }
        return section
    }

    private func directory(_ section: PMTilesHeader.Section, what: String) throws -> [PMTilesEntry] {
        let bytes = try internalBytes(section, what: what)
        do {
            return try PMTilesDirectory.decode(bytes)
        } catch PMTilesFormatError.malformed(let detail) {
            throw InterchangeError.damaged(name, detail: "the \(what): \(detail)")
        }
    }

    /// A section in the internal compression, decompressed.
    private func internalBytes(_ section: PMTilesHeader.Section, what: String) throws -> Data {
        let raw = try bytes(in: .init(offset: 0, length: fileSize), section.offset, section.length, what: what)
        guard header.internalCompression == .gzip else { return raw }
        do {
            return try Zlib.inflate(raw, windowBits: 31)
        } catch {
            throw InterchangeError.damaged(name, detail: "the \(what) does not inflate (\(error))")
        }
    }

    private func bytes(in section: PMTilesHeader.Section, _ offset: UInt64, _ length: UInt64, what: String) throws -> Data {
        guard let part = section.part(at: offset, length: length), let count = Int(exactly: length) else {
            throw InterchangeError.damaged(name, detail: "the \(what) (\(length) bytes at \(offset)) lies outside its section")
        }
        let data = try handle.read(at: part.offset, count: count)
        guard data.count == count else {
            throw InterchangeError.damaged(name, detail: "the file ends inside the \(what)")
        }
        return data
    }
}
