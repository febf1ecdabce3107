import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// Lines for the user or the log on stderr, written with POSIX `write`: `FileHandle.write(_:)` traps
/// on any error (EPIPE, ENOSPC), and a message must never kill the process. What fails is dropped.
public enum StandardError {
    /// Every line is redacted first (`Redaction`): stderr is the daemon's log and commands' errors.
    public static func write(_ text: String) {
        try? PosixFile(borrowing: STDERR_FILENO).write(Data(Redaction.text(text).utf8))
    }
}
