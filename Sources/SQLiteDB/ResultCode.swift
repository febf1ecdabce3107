import CSQLite

/// An SQLite result code, primary (`SQLITE_FULL`, 13) or extended (`SQLITE_READONLY_ROLLBACK`:
/// `SQLITE_READONLY | 3 << 8`). See https://www.sqlite.org/rescode.html.
public struct ResultCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: CInt

    public init(rawValue: CInt) { self.rawValue = rawValue }

    /// The primary code of an extended one (its low 8 bits); a primary code is its own.
    public var primaryResultCode: ResultCode { ResultCode(rawValue: rawValue & 0xFF) }

    /// A primary pattern matches every extended code of its family (`case .SQLITE_IOERR:` matches
    /// `SQLITE_IOERR_WRITE`); an extended pattern matches only itself.
    public static func ~= (pattern: ResultCode, code: ResultCode) -> Bool {
        pattern == pattern.primaryResultCode ? pattern == code.primaryResultCode : pattern == code
    }

    /// SQLite's English text for the code ("database or disk is full").
    var errorString: String { String(cString: sqlite3_errstr(rawValue)) }

    public var description: String { "\(rawValue) (\(errorString))" }

    public static let SQLITE_OK = ResultCode(rawValue: 0)
    public static let SQLITE_ERROR = ResultCode(rawValue: 1)
    public static let SQLITE_INTERNAL = ResultCode(rawValue: 2)
    public static let SQLITE_ABORT = ResultCode(rawValue: 4)
    public static let SQLITE_BUSY = ResultCode(rawValue: 5)
    public static let SQLITE_READONLY = ResultCode(rawValue: 8)
    public static let SQLITE_INTERRUPT = ResultCode(rawValue: 9)
    public static let SQLITE_IOERR = ResultCode(rawValue: 10)
    public static let SQLITE_FULL = ResultCode(rawValue: 13)
    public static let SQLITE_CANTOPEN = ResultCode(rawValue: 14)
    public static let SQLITE_TOOBIG = ResultCode(rawValue: 18)
    public static let SQLITE_CONSTRAINT = ResultCode(rawValue: 19)
    public static let SQLITE_MISMATCH = ResultCode(rawValue: 20)
    public static let SQLITE_MISUSE = ResultCode(rawValue: 21)
    public static let SQLITE_NOTADB = ResultCode(rawValue: 26)
    public static let SQLITE_ROW = ResultCode(rawValue: 100)
    public static let SQLITE_DONE = ResultCode(rawValue: 101)
    /// A read-only connection met a hot journal it may not roll back.
    public static let SQLITE_READONLY_ROLLBACK = ResultCode(rawValue: 8 | 3 << 8)
}
