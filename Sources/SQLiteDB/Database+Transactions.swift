import CSQLite

extension Database {
    public enum TransactionKind: String, Sendable {
        case deferred = "DEFERRED"
        case immediate = "IMMEDIATE"
    }

    /// What `inTransaction`'s closure asks for.
    public enum TransactionCompletion: Sendable {
        case commit
        case rollback
    }

    /// Whether a transaction is open (SQLite is out of autocommit mode).
    public var isInsideTransaction: Bool {
        sqliteConnection.map { sqlite3_get_autocommit($0) == 0 } ?? false
    }

    /// Runs `body` in a transaction, committed or rolled back as it answers, rolled back when it throws.
    /// `kind` nil: IMMEDIATE, so two writers never both read then fail to upgrade their lock (DEFERRED
    /// on a read-only connection). Not nested.
    public func inTransaction(_ kind: TransactionKind? = nil, _ body: () throws -> TransactionCompletion) throws {
        try beginTransaction(kind)
        transactionBlocks += 1
        var inBlock = true
        defer { if inBlock { transactionBlocks -= 1 } }
        var firstError: Error?
        do {
            switch try body() {
            case .commit:
                try checkForAbortedTransaction(sql: nil)
                transactionBlocks -= 1
                inBlock = false
                try commit()
            case .rollback:
                try rollback()
            }
        } catch {
            firstError = error
            do { try rollback() } catch {}
        }
        if let firstError { throw firstError }
    }

    /// `body`'s result, from one transaction: what `read` and `write` run.
    func committed<T>(_ kind: TransactionKind?, _ body: (Database) throws -> T) throws -> T {
        var result: T?
        try inTransaction(kind) {
            result = try body(self)
            return .commit
        }
        guard let result else { throw DatabaseError(resultCode: .SQLITE_INTERNAL, message: "the transaction gave no result") }
        return result
    }

    /// Prepared anew on a connection that writes: a BEGIN prepared before an ATTACH does not lock the
    /// attached database (a merge's commit then skipped the super-journal a full disk refuses). A
    /// read-only connection, which never attaches, keeps it: every cold tile read begins one.
    func beginTransaction(_ kind: TransactionKind?) throws {
        let kind = kind ?? (isReadOnly ? .deferred : .immediate)
        guard configuration.readonly, kind == .deferred else { return try execute(sql: "BEGIN \(kind.rawValue) TRANSACTION") }
        try cachedStatement(Self.beginDeferred).execute()
    }

    func commit() throws {
        try cachedStatement(Self.commitTransaction).execute()
    }

    private static let beginDeferred = StatementKey("BEGIN DEFERRED TRANSACTION")
    private static let commitTransaction = StatementKey("COMMIT TRANSACTION")

    /// Rolls back if still open (a full disk may have ended it); retried after an interrupt.
    func rollback() throws {
        guard isInsideTransaction else { return }
        do {
            try cachedStatement(sql: "ROLLBACK TRANSACTION").execute()
        } catch let error as DatabaseError where error.resultCode == .SQLITE_INTERRUPT || error.resultCode == .SQLITE_ABORT {
            resetAllStatements()
            try cachedStatement(sql: "ROLLBACK TRANSACTION").execute()
        }
    }

    private func resetAllStatements() {
        guard let handle = sqliteConnection else { return }
        var statement = sqlite3_next_stmt(handle, nil)
        while let current = statement {
            sqlite3_reset(current)
            statement = sqlite3_next_stmt(handle, current)
        }
    }

    /// SQLite may end a transaction on its own (FULL, IOERR, BUSY, NOMEM); the next statement would
    /// then run in autocommit, outside the caller's transaction. It fails instead, with SQLITE_ABORT.
    func checkForAbortedTransaction(sql: @autoclosure () -> String?) throws {
        guard transactionBlocks > 0, let handle = sqliteConnection, sqlite3_get_autocommit(handle) != 0 else { return }
        throw DatabaseError(resultCode: .SQLITE_ABORT, message: "Transaction was aborted", sql: sql())
    }

    // MARK: Read-only access

    /// `PRAGMA query_only` for the time of `body` (a read-write connection's `read`).
    func readOnly<T>(_ body: () throws -> T) throws -> T {
        if configuration.readonly { return try body() }
        if readOnlyDepth == 0 { try cachedStatement(sql: "PRAGMA query_only = 1").execute() }
        readOnlyDepth += 1
        defer {
            readOnlyDepth -= 1
            if readOnlyDepth == 0 { leaveReadOnly() }
        }
        return try body()
    }

    /// An interrupt must not leave the connection read-only: retried after a reset.
    private func leaveReadOnly() {
        do {
            try cachedStatement(sql: "PRAGMA query_only = 0").execute()
        } catch {
            resetAllStatements()
            try? cachedStatement(sql: "PRAGMA query_only = 0").execute()
        }
    }

    var isReadOnly: Bool { configuration.readonly || readOnlyDepth > 0 }

    // MARK: After the transaction

    /// Calls `onCommit` or `onRollback` right after the current (or next) transaction ends, on this thread.
    public func afterNextTransaction(onCommit: @escaping (Database) -> Void, onRollback: @escaping (Database) -> Void = { _ in }) {
        guard let handle = sqliteConnection else { return }
        if transactionHandlers.isEmpty {
            transactionOutcome = nil
            wasInsideTransaction = sqlite3_get_autocommit(handle) == 0
            let context = Unmanaged.passUnretained(self).toOpaque()
            sqlite3_commit_hook(handle, { context in
                guard let context else { return 0 }
                let db = Unmanaged<Database>.fromOpaque(context).takeUnretainedValue()
                if db.transactionOutcome == nil { db.transactionOutcome = .commit }
                return 0
            }, context)
            sqlite3_rollback_hook(handle, { context in
                guard let context else { return }
                Unmanaged<Database>.fromOpaque(context).takeUnretainedValue().transactionOutcome = .rollback
            }, context)
        }
        transactionHandlers.append(TransactionHandler(onCommit: onCommit, onRollback: onRollback))
    }

    /// After each execution: when a transaction ended, its handlers run. SQLite's commit hook
    /// does not fire for a transaction that wrote nothing: an end without a rollback is a commit.
    func statementDidEnd() {
        guard !transactionHandlers.isEmpty, let handle = sqliteConnection else { return }
        let inside = sqlite3_get_autocommit(handle) == 0
        defer { wasInsideTransaction = inside }
        guard !inside, transactionOutcome != nil || wasInsideTransaction else { return }
        let outcome = transactionOutcome ?? .commit
        let handlers = transactionHandlers
        transactionHandlers = []
        transactionOutcome = nil
        sqlite3_commit_hook(handle, nil, nil)
        sqlite3_rollback_hook(handle, nil, nil)
        for handler in handlers {
            switch outcome {
            case .commit: handler.onCommit(self)
            case .rollback: handler.onRollback(self)
            }
        }
    }
}

/// The closures of one `afterNextTransaction`.
struct TransactionHandler {
    let onCommit: (Database) -> Void
    let onRollback: (Database) -> Void
}
