import FoundationEssentials

/// Files in `packs/` that are no region file (`sed -i`'s temporary file, an editor's backup), kept in
/// memory until removed, renamed or unmounted; never named `*.region`, `*.error` or as a pack.
typealias ScratchFiles = SerialFiles<ScratchFile>

struct ScratchFile: SerialFile, Equatable {
    var serial: UInt32
    var name: String
    var content = Data()
    var mode: UInt16 = 0o644
}

extension ScratchFiles where File == ScratchFile {
    /// Keeps a runaway loop from filling the daemon's memory; tools keep one or two at a time.
    static var maxFiles: Int { 64 }

    /// Whether `name` may be a scratch file's (not a region file, an error file or a dot name).
    static func admits(_ name: String) -> Bool {
        !name.hasSuffix(".region") && !name.hasSuffix(".error") && PatchUploads.packName(of: name) == nil && name != "."
            && name != ".."
    }

    func create(name: String, mode: UInt16) throws -> File {
        try withTable { table in
            if table.file(named: name) != nil { throw FilesystemError.exists }
            guard table.bySerial.count < Self.maxFiles else {
                throw FilesystemError.noSpace("\(Self.maxFiles) scratch files in packs/")
            }
            return table.add { File(serial: $0, name: name, mode: mode & 0o7777) }
        }
    }

    /// Writes `data` at `offset` (zeros fill a gap, as in a sparse file); the count written.
    func write(_ serial: UInt32, offset: Int64, data: Data) throws -> Int {
        try change(serial) { file in
            guard offset >= 0, offset <= Int64(RegionDrafts.maxBytes) - Int64(data.count) else { throw FilesystemError.tooLarge }
            let start = Int(offset)
            if file.content.count < start { file.content.append(Data(count: start - file.content.count)) }
            let end = min(file.content.count, start + data.count)
            file.content.replaceSubrange(start..<end, with: data)
            return data.count
        }
    }

    func resize(_ serial: UInt32, to size: UInt64) throws {
        try change(serial) { file in
            guard size <= UInt64(RegionDrafts.maxBytes) else { throw FilesystemError.tooLarge }
            let size = Int(size)
            if size < file.content.count { file.content = file.content.prefix(size) } else {
                file.content.append(Data(count: size - file.content.count))
            }
        }
    }

    func setMode(_ serial: UInt32, _ mode: UInt16) throws { try change(serial) { $0.mode = mode & 0o7777 } }

    /// Another name, as `mv` gives it; a scratch file already there is replaced, as rename does.
    func rename(_ serial: UInt32, to name: String) throws {
        try withTable { table in
            guard var file = table.bySerial[serial] else { throw FilesystemError.stale }
            if let other = table.file(named: name), other.serial != serial { table.bySerial[other.serial] = nil }
            file.name = name
            table.bySerial[serial] = file
        }
    }
}
