import Basics
import FoundationEssentials
import PackStore

/// Patches being copied to `packs/<name>.patch`, one per pack at a time, each spooled beside the database
/// (`SpoolFile`): a country's patch is gigabytes. The write that reaches the size the SQLite header declares applies
/// it, so `cp` learns the verdict from that write (no FLUSH; close() does not wait for a release); first bytes that are
/// not SQLite's header are refused at once. A file whose header declares no size is applied when its last handle goes.
typealias PatchUploads = SerialFiles<PatchUpload>

struct PatchUpload: SerialFile {
    var serial: UInt32
    var name: String
    var region: RegionID
    var spool: SpoolFile
    /// Bytes written, as the end of the furthest write (`cp` writes in order).
    var size: Int64 = 0
    /// The first 100 bytes: the SQLite header, which says how long the file is.
    var head = Data()
    /// Open handles; the last one going applies a file not applied yet.
    var opens = 1
    /// Counts writes and truncations: a settle timer set before the latest does nothing.
    var changes = 0
}

extension PatchUploads where File == PatchUpload {
    static var suffix: String { ".patch" }

    static func packName(of fileName: String) -> String? {
        guard fileName.hasSuffix(suffix), fileName.count > suffix.count else { return nil }
        return String(fileName.dropLast(suffix.count))
    }

    /// A new upload for pack `name`; EBUSY while one for it is under way.
    func start(name: String, region: RegionID, spool: SpoolFile) throws -> File {
        try withTable { table in
            guard table.file(named: name) == nil else { throw FilesystemError.busy }
            return table.add { File(serial: $0, name: name, region: region, spool: spool) }
        }
    }

    /// What a write made of an upload.
    enum Written: Equatable {
        /// More bytes are due (or the header declares no size: the last handle settles it).
        case partial
        /// The file is as long as its header says.
        case whole
        /// Its first bytes are not an SQLite header: no more bytes can make it a patch.
        case notSQLite
    }

    /// The 16 bytes every SQLite database starts with.
    static var sqliteMagic: [UInt8] { Array("SQLite format 3\0".utf8) }

    func write(_ serial: UInt32, offset: Int64, data: Data) throws -> Written {
        guard let spool = file(serial)?.spool else { throw FilesystemError.stale }
        guard offset >= 0, offset <= Int64.max - Int64(data.count) else { throw FilesystemError.tooLarge }
        try spool.write(data, at: offset)
        return try change(serial) { upload in
            let end = offset + Int64(data.count)
            upload.size = max(upload.size, end)
            upload.changes += 1
            if upload.head.count < 100, offset <= Int64(upload.head.count) {
                let start = Int(offset)
                let kept = data.prefix(100 - start)
                upload.head = upload.head.prefix(start) + kept
            }
            guard upload.head.prefix(Self.sqliteMagic.count).elementsEqual(Self.sqliteMagic.prefix(upload.head.count))
            else { return .notSQLite }
            guard let declared = Self.declaredSize(upload.head) else { return .partial }
            return upload.size == declared ? .whole : .partial
        }
    }

    func resize(_ serial: UInt32, to size: Int64) throws {
        guard let spool = file(serial)?.spool else { throw FilesystemError.stale }
        try spool.resize(to: size)
        try change(serial) { upload in
            upload.size = size
            upload.changes += 1
            if size < Int64(upload.head.count) { upload.head = upload.head.prefix(Int(size)) }
        }
    }

    func opened(_ serial: UInt32) throws { try change(serial) { $0.opens += 1 } }

    /// A handle went; the upload when it was the last (still registered: the caller applies or drops it).
    func released(_ serial: UInt32) -> File? {
        try? change(serial) { (upload: inout File) -> File? in
            upload.opens -= 1
            return upload.opens <= 0 ? upload : nil
        }
    }

    /// The length the SQLite header declares, if whole and valid ("version-valid-for" = change counter).
    static func declaredSize(_ head: Data) -> Int64? {
        guard head.count >= 100, head.starts(with: sqliteMagic) else { return nil }
        let bytes = Array(head.prefix(100))
        func number(at offset: Int, _ count: Int) -> UInt64 {
            bytes[offset..<offset + count].reduce(0) { $0 << 8 | UInt64($1) }
        }
        let rawPageSize = number(at: 16, 2)
        let pageSize: UInt64 = rawPageSize == 1 ? 65536 : rawPageSize
        let pages = number(at: 28, 4)
        guard pageSize >= 512, pageSize.nonzeroBitCount == 1, pages > 0, number(at: 92, 4) == number(at: 24, 4)
        else { return nil }
        return Int64(pageSize * pages)
    }
}
