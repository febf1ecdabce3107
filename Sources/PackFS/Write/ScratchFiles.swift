import Basics
import FoundationEssentials
import PackStore

/// Files in `packs/` that are no region file: the temporary file `sed -i` writes beside the file
/// it edits (then renames over it), an editor's backup or swap file. They live in memory only,
/// as long as the mount, until removed or renamed; renaming one to `<name>.region` hands its
/// text to the pack manager as if it had been written there (`PackFilesystem.rename`). A name
/// ending in `.region` or `.error`, or a pack's, is never a scratch file.
final class ScratchFiles: Sendable {
    /// Few tools keep more than one or two at a time; the bound keeps a runaway loop from
    /// filling the daemon's memory (each file is also bounded by `RegionDrafts.maxBytes`).
    static let maxFiles = 64

    struct File: Equatable {
        var serial: UInt32
        var name: String
        var content = Data()
        var mode: UInt16 = 0o644
    }

    private struct State {
        var bySerial: [UInt32: File] = [:]
        var nextSerial: UInt32 = 1
    }

    private let state = LockedState(State())

    /// Whether `name` may be a scratch file's (not a region file, an error file or a dot name).
    static func admits(_ name: String) -> Bool {
        !name.hasSuffix(".region") && !name.hasSuffix(".error") && PatchUploads.packName(of: name) == nil && name != "."
            && name != ".."
    }

    var all: [File] { state.withLock { $0.bySerial.values.sorted { $0.serial < $1.serial } } }

    func file(named name: String) -> File? { state.withLock { $0.bySerial.values.first { $0.name == name } } }

    func file(_ serial: UInt32) -> File? { state.withLock { $0.bySerial[serial] } }

    func create(name: String, mode: UInt16) throws -> File {
        try state.withLock { state in
            if state.bySerial.values.contains(where: { $0.name == name }) { throw FilesystemError.exists }
            guard state.bySerial.count < Self.maxFiles else { throw FilesystemError.noSpace("\(Self.maxFiles) scratch files in packs/") }
            let file = File(serial: state.nextSerial, name: name, mode: mode & 0o7777)
            state.nextSerial &+= 1
            state.bySerial[file.serial] = file
            return file
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
        try state.withLock { state in
            guard var file = state.bySerial[serial] else { throw FilesystemError.stale }
            if let other = state.bySerial.values.first(where: { $0.name == name && $0.serial != serial }) {
                state.bySerial[other.serial] = nil
            }
            file.name = name
            state.bySerial[serial] = file
        }
    }

    @discardableResult
    func remove(_ serial: UInt32) -> File? { state.withLock { $0.bySerial.removeValue(forKey: serial) } }

    private func change<T>(_ serial: UInt32, _ body: (inout File) throws -> T) throws -> T {
        try state.withLock { state in
            guard var file = state.bySerial[serial] else { throw FilesystemError.stale }
            let result = try body(&file)
            state.bySerial[serial] = file
            return result
        }
    }
}
