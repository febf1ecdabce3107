import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// How busy the machine is now, for work that should only take a core nobody else wants (read-ahead)
/// or keep to one core while the others idle (the io_uring threads' pinning).
public enum MachineLoad {
    /// The machine's runnable tasks now (the "2" of /proc/loadavg's "2/345", the caller among them),
    /// nil if unreadable.
    public static func runnableTasks() -> Int? {
        guard loadFile >= 0 else { return nil }
        var bytes = [UInt8](repeating: 0, count: 128)
        let count = bytes.withUnsafeMutableBytes { pread(loadFile, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { return nil }
        let fields = bytes[..<count].split(separator: UInt8(ascii: " "))
        guard fields.count > 3, let slash = fields[3].firstIndex(of: UInt8(ascii: "/")) else { return nil }
        return Int(String(decoding: fields[3][..<slash], as: UTF8.self))
    }

    /// Whether no more tasks are runnable than there are cores (true when unknown).
    public static func hasSpareCore(cores: Int = onlineCores) -> Bool {
        runnableTasks().map { $0 <= cores } ?? true
    }

    public static let onlineCores = max(ProcessInfo.processInfo.activeProcessorCount, 1)

    private static let loadFile = open("/proc/loadavg", O_RDONLY | O_CLOEXEC)
}
