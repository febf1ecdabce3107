import CSQLite

/// Rows stepped one `next()` at a time from their own statement (`Row.fetchCursor`). The read
/// lasts until the last row, an error, or the cursor's end of life, which resets the statement.
public final class RowCursor {
    private let statement: Statement
    private var done = false

    init(_ statement: Statement, arguments: StatementArguments) throws {
        self.statement = statement
        try statement.setArguments(arguments)
        try statement.database.willExecute(statement)
    }

    deinit {
        // The connection may be gone already: only the statement is touched.
        if !done { sqlite3_reset(statement.sqliteStatement) }
    }

    /// The next row, nil after the last.
    public func next() throws -> Row? {
        guard !done else { return nil }
        do {
            if try statement.step() { return Row(statement) }
        } catch {
            finish()
            throw error
        }
        finish()
        return nil
    }

    private func finish() {
        guard !done else { return }
        done = true
        sqlite3_reset(statement.sqliteStatement)
        statement.database.statementDidEnd()
    }
}

// A cursor belongs to its connection's thread.
@available(*, unavailable)
extension RowCursor: Sendable {}
