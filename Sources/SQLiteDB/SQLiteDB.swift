// SQLiteDB: PackFS's own layer over SQLite's C API (the system-library target CSQLite), in place of
// GRDB.swift, whose `import Foundation` brought ICU into the binary (docs/benchmarks.md, "Designs
// measured and set aside"). It offers the subset of GRDB's API that PackFS uses, under GRDB's
// names and shapes, and keeps GRDB's semantics where PackFS depends on them.
//
// Concepts. A `Database` is one SQLite connection: statements (`makeStatement`, `cachedStatement`,
// `execute(sql:)`), transactions (`inTransaction`), and the values it reads: `Row`, `DatabaseValue`,
// and the `DatabaseValueConvertible` types (Int, Int64, Int32, Double, Bool, String, Data, Optional)
// with `fetchOne`/`fetchAll`. A `DatabaseQueue` serializes one connection; a `DatabasePool` (WAL mode)
// has one writer connection and up to `Configuration.maximumReaderCount` reader connections, so that
// reads never wait for the writer. Both are a `DatabaseWriter`: `read` (a read-only transaction),
// `write` (an IMMEDIATE transaction, committed when the closure returns, rolled back when it
// throws), `writeWithoutTransaction`, `backup(to:)`, `interrupt()`, `close()`. A pool also reads
// without a transaction of its own (`readWithoutTransaction`: each statement its own snapshot), and
// holds one connection in one read transaction for a thread's scope (`withThreadSnapshot`).
//
// Caching. `cachedStatement(sql:)` keeps one prepared statement per SQL text for the connection's
// lifetime (a statement that fails is dropped from the cache, and prepared again on its next use);
// each use resets it and binds its arguments anew. `execute(sql:)` and the `fetch` functions that take
// `sql:` prepare, run and finalize their statements, as GRDB does: their SQL is often built per call.
// A hot path names its statements with `StatementKey`s (`cachedStatement(_:)`, the same cache found
// by the key's identity) and reads rows in place (`forEachRow`, `firstRow`: a `StatementRow` per
// step, a blob handed over where SQLite holds it by `withUnsafeBlob`), making no `Row`.
//
// Conversions. `fetchOne`/`fetchAll` of a value type read the column with SQLite's own conversions
// (sqlite3_column_int64 of 'abc' is 0), NULL being nil for `fetchOne` and an error for `fetchAll`, as
// GRDB's fast path does. A `Row` holds copies of its values; `row.decode` converts strictly (an Int
// from an integer, or from a real within range; a String from text or valid UTF-8 blob; a Bool from
// a number) and throws `DatabaseError` (SQLITE_MISMATCH) naming the column otherwise. The
// subscripts never trap: they answer optionals (nil when NULL, missing or not convertible) or a
// `DatabaseValue`. Nothing reached by a file's data traps.
//
// Threading. `Database`, `Statement`, `Row` cursors are not Sendable: a connection is used by one
// thread at a time, inside the closure its queue or pool hands it to. `DatabaseQueue` and
// `DatabasePool` are Sendable; each connection sits behind a pthread mutex (`Lock`), which
// ThreadSanitizer models. The methods are not reentrant: reading a queue from inside its own
// `write` is a programmer's mistake, and deadlocks on that lock.
//
// Errors. Every SQLite failure is a `DatabaseError`: the primary `resultCode` (`.SQLITE_FULL`), the
// `extendedResultCode`, SQLite's message and the statement's SQL, described as GRDB does:
// "SQLite error 13: database or disk is full - while executing `INSERT ...`".

/// A raw SQLite connection handle (`sqlite3 *`), for the C API.
public typealias SQLiteConnection = OpaquePointer
/// A raw prepared statement handle (`sqlite3_stmt *`), for the C API.
public typealias SQLiteStatement = OpaquePointer
