// SQLiteDB: PackFS's own layer over SQLite's C API (CSQLite). It replaced GRDB.swift, whose Foundation
// import brought ICU into the binary (docs/benchmarks.md), and keeps GRDB's names, shapes and, where
// PackFS depends on them, semantics.
//
// Concepts. A `Database` is one connection: statements, transactions, and the values it reads (`Row`,
// `DatabaseValue`, `DatabaseValueConvertible` types with `fetchOne`/`fetchAll`). A `DatabaseQueue`
// serializes one connection; a `DatabasePool` (WAL) has one writer and up to
// `Configuration.maximumReaderCount` readers, so reads never wait for the writer. Both are a
// `DatabaseWriter`: `read` is a read-only transaction, `write` an IMMEDIATE one, committed when the
// closure returns and rolled back when it throws. A pool also reads without a transaction of its own
// (each statement its own snapshot) and holds one read transaction for a thread's scope
// (`withThreadSnapshot`).
//
// Caching. `cachedStatement` keeps one prepared statement per SQL text (or per `StatementKey`, by
// identity) for the connection's lifetime; a statement that fails leaves the cache. `execute(sql:)`
// and the `fetch` functions taking `sql:` finalize theirs, since their SQL is often built per call.
// A hot path reads rows in place (`forEachRow`, `firstRow`, `withUnsafeBlob`) and makes no `Row`.
//
// Conversions. `fetchOne`/`fetchAll` of a value type use SQLite's own conversions ('abc' as Int is 0);
// NULL is nil for `fetchOne` and an error for `fetchAll`, as in GRDB. `row.decode` converts strictly
// and throws `DatabaseError` (SQLITE_MISMATCH) naming the column. Subscripts answer optionals or a
// `DatabaseValue` and never trap: nothing reached by a file's data traps.
//
// Threading. `Database`, `Statement` and row cursors are not Sendable: one thread uses a connection,
// inside the closure its queue or pool hands it to. Queue and pool are Sendable, each connection behind
// a pthread mutex (`Lock`, which ThreadSanitizer models). Not reentrant: reading a queue inside its own
// `write` deadlocks on that lock.
//
// Errors. Every SQLite failure is a `DatabaseError` (result code, extended code, message, SQL),
// described as GRDB does: "SQLite error 13: database or disk is full - while executing `INSERT ...`".

/// A raw SQLite connection handle (`sqlite3 *`), for the C API.
public typealias SQLiteConnection = OpaquePointer
/// A raw prepared statement handle (`sqlite3_stmt *`), for the C API.
public typealias SQLiteStatement = OpaquePointer
