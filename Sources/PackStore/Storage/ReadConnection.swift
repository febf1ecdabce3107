import Basics
import CDeflate
import CSQLite
import FoundationEssentials

/// One SQL text the raw readers run, prepared once per connection. Statements are found by the
/// query's identity, not by hashing its text on every call.
final class ReadQuery: Sendable {
    let sql: String
    init(_ sql: String) { self.sql = sql }
}

/// A value bound to a `?` of a `ReadQuery`.
enum ReadArgument {
    case int(Int64)
    case text(String)
}

/// The current row of a stepping statement, by column index (no name lookups).
struct ReadRow {
    let statement: OpaquePointer
    /// The connection stepping it, whose decompressor `decoded` uses.
    let connection: ReadConnection

    func int64(_ column: Int32) -> Int64 { sqlite3_column_int64(statement, column) }
    func bool(_ column: Int32) -> Bool { int64(column) != 0 }
    /// An integer column, nil when it holds anything else (NULL, text, a real).
    func integer(_ column: Int32) -> Int64? {
        sqlite3_column_type(statement, column) == SQLITE_INTEGER ? int64(column) : nil
    }

    /// A blob column copied out (NULL is nil; an empty blob is empty data).
    func blob(_ column: Int32) -> Data? {
        bytes(column).map { Data($0) }
    }

    /// A blob column where SQLite holds it, valid until the statement steps or resets (NULL is
    /// nil; an empty blob is an empty buffer).
    func bytes(_ column: Int32) -> UnsafeRawBufferPointer? {
        guard sqlite3_column_type(statement, column) != SQLITE_NULL else { return nil }
        let count = Int(sqlite3_column_bytes(statement, column))
        guard count > 0, let bytes = sqlite3_column_blob(statement, column) else { return UnsafeRawBufferPointer(start: nil, count: 0) }
        return UnsafeRawBufferPointer(start: bytes, count: count)
    }

    /// A stored blob decoded as `StoredData.decoded()` does (nil for NULL), inflated where SQLite
    /// holds it and with the connection's decompressor: no copy of the stored bytes and no
    /// decompressor made per row, on the path of every cold tile.
    func decoded(_ column: Int32, compressed: Bool) throws -> Data? {
        guard compressed else { return blob(column) }
        guard let stored = bytes(column) else { return nil }
        guard stored.count > 0 else { return try Zlib.decompress(Data()) }
        return try connection.inflate(stored)
    }

    func text(_ column: Int32) -> String? {
        guard let bytes = sqlite3_column_text(statement, column) else { return nil }
        return String(cString: bytes)
    }
}

/// A read-only SQLite connection of its own, outside SQLiteDB's pool, for the mount's hot
/// single-statement queries: a pool read's cost (under GRDB: a dispatch hop, a pool checkout,
/// BEGIN and COMMIT) was most of a cold tile lookup. A single SELECT in autocommit mode is its own consistent read
/// transaction, which in WAL mode never waits for a writer; it ends when the statement is reset.
/// Used by one thread at a time (`ReaderPool` hands it out).
final class ReadConnection {
    private let handle: OpaquePointer
    private let path: String
    private var statements: [ObjectIdentifier: OpaquePointer] = [:]
    private var madeInflater: OpaquePointer?

    /// libdeflate's state for `ReadRow.decoded`, made on first use (nil if it could not be: each
    /// decode then makes its own).
    var inflater: OpaquePointer? {
        if madeInflater == nil { madeInflater = libdeflate_alloc_decompressor() }
        return madeInflater
    }

    init(path: String) throws {
        var handle: OpaquePointer?
        let code = sqlite3_open_v2(path, &handle, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, nil)
        guard code == SQLITE_OK, let handle else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "code \(code)"
            sqlite3_close_v2(handle)
            throw StoreError.sqlite("\(path): \(message)")
        }
        self.handle = handle
        self.path = path
        // As the pool's connections: wait for locks rather than fail (a rollback-journal file, or a
        // WAL being reset).
        sqlite3_busy_timeout(handle, 30_000)
        // A small page cache (64 KiB, SQLite's default is 2 MB per connection): the kernel's page
        // cache holds the file anyway, and the B-tree's upper pages, the ones every query walks,
        // fit. With up to 16 connections the default cost a cold-reading daemon about 10 MB, and
        // 256 KiB 2 MB more than 64 at the same read rate (load.sh).
        sqlite3_exec(handle, "PRAGMA cache_size = -64", nil, nil, nil)
        // Tried: mmap_size (7% less daemon CPU on cold reads, rate within noise); a file
        // truncated under the mapping, as incremental_vacuum does, would be SIGBUS.
    }

    deinit {
        if let madeInflater { libdeflate_free_decompressor(madeInflater) }
        for statement in statements.values { sqlite3_finalize(statement) }
        sqlite3_close_v2(handle)
    }

    /// Whether no transaction is open (SQLite's autocommit mode): a connection is handed to the
    /// next reader only then.
    var inAutocommit: Bool { sqlite3_get_autocommit(handle) != 0 }

    /// Runs `query` and calls `row` for each result row until it returns false; the statement
    /// is reset afterwards, ending its read transaction.
    func each(_ query: ReadQuery, _ arguments: [ReadArgument], _ row: (ReadRow) throws -> Bool) throws {
        let statement = try prepared(query)
        defer {
            sqlite3_reset(statement)
            sqlite3_clear_bindings(statement)
        }
        try bind(arguments, to: statement)
        while true {
            let code = sqlite3_step(statement)
            if code == SQLITE_DONE { return }
            guard code == SQLITE_ROW else { throw failure(code) }
            guard try row(ReadRow(statement: statement, connection: self)) else { return }
        }
    }

    /// The first row's value, or nil when there is none.
    func first<T>(_ query: ReadQuery, _ arguments: [ReadArgument], _ value: (ReadRow) throws -> T) throws -> T? {
        var result: T?
        try each(query, arguments) { row in
            result = try value(row)
            return false
        }
        return result
    }

    private func prepared(_ query: ReadQuery) throws -> OpaquePointer {
        if let statement = statements[ObjectIdentifier(query)] { return statement }
        var statement: OpaquePointer?
        let code = sqlite3_prepare_v3(handle, query.sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
        guard code == SQLITE_OK, let statement else { throw failure(code) }
        statements[ObjectIdentifier(query)] = statement
        return statement
    }

    private func bind(_ arguments: [ReadArgument], to statement: OpaquePointer) throws {
        for (offset, argument) in arguments.enumerated() {
            let index = Int32(offset + 1)
            let code: Int32
            switch argument {
            case .int(let value): code = sqlite3_bind_int64(statement, index, value)
            case .text(let value): code = sqlite3_bind_text(statement, index, value, -1, packfs_sqlite_transient())
            }
            guard code == SQLITE_OK else { throw failure(code) }
        }
    }

    private func failure(_ code: Int32) -> StoreError {
        StoreError.sqlite("\(path): \(String(cString: sqlite3_errmsg(handle))) (code \(code))")
    }
}
