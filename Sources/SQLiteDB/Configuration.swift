import CSQLite

/// How connections are opened and set up (GRDB's defaults: foreign keys on, busy means an
/// immediate error, five readers at most for a pool).
public struct Configuration: Sendable {
    /// Opens read-only (SQLITE_OPEN_READONLY): the file is never written, nor created.
    public var readonly = false
    /// `PRAGMA foreign_keys = ON` on every connection.
    public var foreignKeysEnabled = true
    /// What a connection does when another one holds the lock it needs.
    public var busyMode: Database.BusyMode = .immediateError
    /// A pool's reader connections at most.
    public var maximumReaderCount = 5
    private(set) var setups: [@Sendable (Database) throws -> Void] = []

    public init() {}

    /// Runs `setup` on every connection right after it opens (PRAGMAs), before it is used.
    public mutating func prepareDatabase(_ setup: @escaping @Sendable (Database) throws -> Void) {
        setups.append(setup)
    }

    /// No mutex of SQLite's own (the queue or pool serializes each connection); extended result
    /// codes from the start.
    var openFlags: CInt {
        let access = readonly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE
        return access | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE
    }
}

extension Database {
    /// What a connection does when the lock it needs is held: fail with SQLITE_BUSY at once, or
    /// retry for up to that many seconds.
    public enum BusyMode: Sendable {
        case immediateError
        case timeout(Double)
    }
}
