import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// Files written under one root, directories made on first use. Each name is one path component the caller made safe,
/// so nothing lands outside the root. Nothing is overwritten: a name written twice fails, keeping the first file.
struct FileTree {
    let root: String
    private(set) var files = 0
    private(set) var bytes: Int64 = 0
    /// Directories made so far, relative to `root` (tiles come in z, x order: one check per tile).
    private var made: Set<String> = [""]

    init(root: String) { self.root = root }

    /// Writes `data` at `components` (directories, then the file name) below the root.
    mutating func write(_ data: Data, at components: [String]) throws {
        guard let name = components.last else { return }
        let directory = components.dropLast().joined(separator: "/")
        if !made.contains(directory) {
            try FileManager.default.createDirectory(atPath: root + "/" + directory, withIntermediateDirectories: true)
            made.insert(directory)
        }
        let relative = directory.isEmpty ? name : directory + "/" + name
        try Self.create(root + "/" + relative, data, shown: relative)
        files += 1
        bytes += Int64(data.count)
    }

    /// One file, created exclusively (0666 less the umask) and written whole; a failed write or
    /// close (a full disk may show only there) fails the export.
    private static func create(_ path: String, _ data: Data, shown: String) throws {
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o666)
        guard fd >= 0 else { throw failure(shown, "create") }
        let complete = data.withUnsafeBytes { buffer -> Bool in
            var offset = 0
            while offset < buffer.count {
                let written = Glibc.write(fd, buffer.baseAddress.map { $0 + offset }, buffer.count - offset)
                if written < 0, errno == EINTR { continue }
                guard written > 0 else { return false }
                offset += written
            }
            return true
        }
        let writeError = complete ? nil : failure(shown, "write")
        let closed = close(fd) == 0
        if let writeError { throw writeError }
        guard closed else { throw failure(shown, "write") }
    }

    private static func failure(_ path: String, _ action: String) -> InterchangeError {
        .cannotWrite(path, action: action, reason: String(cString: strerror(errno)))
    }
}
