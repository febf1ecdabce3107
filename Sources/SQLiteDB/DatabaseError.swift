/// An SQLite failure, or a misuse this layer refuses (wrong number of arguments, a value that does
/// not convert): the code, SQLite's message, and the SQL it was running.
public struct DatabaseError: Error, Sendable, CustomStringConvertible {
    /// The code as SQLite gave it (connections open with extended result codes).
    public let extendedResultCode: ResultCode
    /// SQLite's message for the failure (`sqlite3_errmsg`), or this layer's.
    public let message: String?
    /// The statement that failed, trimmed of surrounding white space and semicolons.
    public let sql: String?

    /// `message` defaults to SQLite's text for the code ("database or disk is full").
    public init(resultCode: ResultCode = .SQLITE_ERROR, message: String? = nil, sql: String? = nil) {
        extendedResultCode = resultCode
        self.message = message ?? resultCode.errorString
        self.sql = sql.map(Self.trimmed)
    }

    /// The primary code: compare with `.SQLITE_FULL` whatever the extended code.
    public var resultCode: ResultCode { extendedResultCode.primaryResultCode }

    /// "SQLite error 13: database or disk is full - while executing `INSERT ...`" (GRDB's form).
    public var description: String {
        var text = "SQLite error \(resultCode.rawValue)"
        if let message { text += ": \(message)" }
        if let sql { text += " - while executing `\(sql)`" }
        return text
    }

    static func connectionIsClosed() -> DatabaseError {
        DatabaseError(resultCode: .SQLITE_MISUSE, message: "Connection is closed")
    }

    static func trimmed(_ sql: String) -> String {
        let separators: Set<Character> = [" ", "\t", "\n", "\r", "\r\n", ";"]
        guard let first = sql.firstIndex(where: { !separators.contains($0) }),
            let last = sql.lastIndex(where: { !separators.contains($0) })
        else { return "" }
        return String(sql[first...last])
    }
}
