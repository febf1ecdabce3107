import Basics

/// What shows as a file in `packs/` while the mount keeps it in memory, by a serial number its
/// inode carries (`Node.scratch`, `.patch`, `.rejection`); its name is unique among its kind.
protocol SerialFile: Sendable {
    var serial: UInt32 { get }
    var name: String { get }
}

/// The files of one kind (`ScratchFiles`, `PatchUploads`, `Rejections`), under one lock. A
/// serial is never reused during a mount, so an inode of a file that went never names another.
final class SerialFiles<File: SerialFile>: Sendable {
    struct Table {
        var bySerial: [UInt32: File] = [:]
        var nextSerial: UInt32 = 1

        func file(named name: String) -> File? { bySerial.values.first { $0.name == name } }

        mutating func remove(named name: String) {
            if let file = file(named: name) { bySerial[file.serial] = nil }
        }

        /// Adds the file `make` makes with the next serial.
        @discardableResult
        mutating func add(_ make: (UInt32) -> File) -> File {
            let file = make(nextSerial)
            nextSerial &+= 1
            bySerial[file.serial] = file
            return file
        }
    }

    private let table = LockedState(Table())

    /// Every file, oldest first.
    var all: [File] { table.withLock { $0.bySerial.values.sorted { $0.serial < $1.serial } } }

    func file(_ serial: UInt32) -> File? { table.withLock { $0.bySerial[serial] } }

    func file(named name: String) -> File? { table.withLock { $0.file(named: name) } }

    /// Takes the file out: its inode names nothing from now on (`.stale`).
    @discardableResult
    func remove(_ serial: UInt32) -> File? { table.withLock { $0.bySerial.removeValue(forKey: serial) } }

    func withTable<T>(_ body: (inout Table) throws -> T) rethrows -> T { try table.withLock(body) }

    /// Changes file `serial` in place (kept unchanged when `body` throws); `.stale` when it went.
    func change<T>(_ serial: UInt32, _ body: (inout File) throws -> T) throws -> T {
        try table.withLock { table in
            guard var file = table.bySerial[serial] else { throw FilesystemError.stale }
            let result = try body(&file)
            table.bySerial[serial] = file
            return result
        }
    }
}
