import Basics
import FoundationEssentials
import PackStore
import PMTilesFormat

/// An archive's distinct tile contents, each kept once in a scratch file as tiles arrive (flat memory). Equal contents
/// (ocean, blank rasters) are found by hash and length, then compared byte for byte.
final class PMTilesContents {
    struct Blob {
        var offset: UInt64
        var length: UInt32
    }

    private struct Key: Hashable {
        var hash: Int
        var length: Int
    }

    private(set) var blobs: [Blob] = []
    private var byKey: [Key: Int] = [:]
    private let path: String
    private let file: PosixFile
    private var pending = Data()
    private var flushed: UInt64 = 0
    private var size: UInt64 = 0
    private static let bufferSize = 1 << 20

    /// Creates the scratch file at `path`, next to the archive: a pack's contents can outgrow a RAM-backed /tmp.
    init(path: String) throws {
        self.path = path
        do {
            file = try PosixFile(path: path, access: .readWrite, create: true, truncate: true)
        } catch {
            throw InterchangeError.cannotWrite(path, action: "create", reason: "\(error)")
        }
    }

    deinit {
        file.close()
        try? FileManager.default.removeItem(atPath: path)
    }

    /// The index in `blobs` of `data`'s content, stored now unless an equal one already is.
    func add(_ data: Data) throws -> Int {
        guard let length = UInt32(exactly: data.count), length > 0 else {
            throw InterchangeError.unwritablePMTiles("a tile of \(data.count) bytes (PMTiles holds 1 byte to 4 GiB)")
        }
        var hasher = Hasher()
        data.withUnsafeBytes { hasher.combine(bytes: $0) }
        let key = Key(hash: hasher.finalize(), length: data.count)
        if let index = byKey[key], try bytes(of: blobs[index]) == data { return index }
        blobs.append(Blob(offset: size, length: length))
        // A hash collision with different bytes keeps the first content as the candidate.
        if byKey[key] == nil { byKey[key] = blobs.count - 1 }
        pending.append(data)
        size += UInt64(length)
        if pending.count >= Self.bufferSize { try flush() }
        return blobs.count - 1
    }

    /// The bytes of a stored content, from the write buffer or the scratch file.
    func bytes(of blob: Blob) throws -> Data {
        if blob.offset >= flushed {
            let start = Int(blob.offset - flushed)
            return pending.subdata(in: start..<(start + Int(blob.length)))
        }
        let data = try file.read(at: blob.offset, count: Int(blob.length))
        guard data.count == Int(blob.length) else {
            throw InterchangeError.cannotRead(path, reason: "it ends before byte \(blob.offset + UInt64(blob.length))")
        }
        return data
    }

    /// Writes out the buffer; after it, every content is in the scratch file.
    func flush() throws {
        guard !pending.isEmpty else { return }
        try file.write(pending)
        flushed += UInt64(pending.count)
        pending.removeAll(keepingCapacity: true)
    }

    /// The scratch file mapped (after `flush()`), to copy the tile data from in cluster order; unchanged while mapped.
    func mapped() throws -> Data {
        try Data(contentsOf: URL(fileURLWithPath: path), options: .alwaysMapped)
    }
}
