import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// Lines for the user or the log on stderr, written with POSIX `write`. Foundation's
/// `FileHandle.write(_:)` traps on any error (EPIPE when the reader is gone, ENOSPC or EIO when
/// stderr is a log file on a full or failing disk): a message must never kill the process that
/// tries to report something. What cannot be written is dropped.
public enum StandardError {
    /// Every line is redacted first (`Redaction`): stderr is the daemon's log and the
    /// command's error line, both read by others.
    public static func write(_ text: String) {
        try? PosixFile(borrowing: STDERR_FILENO).write(Data(Redaction.text(text).utf8))
    }
}
