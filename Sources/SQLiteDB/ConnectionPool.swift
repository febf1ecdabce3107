import Basics
import Dispatch

/// A pool's reader connections: made on demand up to `maximum`, reused, waited for when all are out.
/// An `overflowing` check-out neither waits nor counts: it serves a thread that may already hold one
/// (a `read` inside `withThreadSnapshot`), which would otherwise wait for itself. Extra ones close on return.
final class ConnectionPool: Sendable {
    private struct State {
        var idle: [SerializedConnection] = []
        var all: [SerializedConnection] = []
        var closed = false
    }

    private let state = LockedState(State())
    /// One permit per connection that may be out at once.
    private let permits: DispatchSemaphore
    private let maximum: Int
    private let make: @Sendable () throws -> SerializedConnection

    init(maximum: Int, make: @escaping @Sendable () throws -> SerializedConnection) {
        self.maximum = maximum
        self.make = make
        permits = DispatchSemaphore(value: maximum)
    }

    func checkOut(overflowing: Bool = false) throws -> SerializedConnection {
        if !overflowing { permits.wait() }
        do {
            let reused = try state.withLock { state -> SerializedConnection? in
                guard !state.closed else { throw DatabaseError.connectionIsClosed() }
                return state.idle.popLast()
            }
            if let reused { return reused }
            let made = try make()
            state.withLock { $0.all.append(made) }
            return made
        } catch {
            if !overflowing { permits.signal() }
            throw error
        }
    }

    /// `reusable` false: the connection is closed (a transaction it could not end), as is one
    /// beyond `maximum`. `overflowed`: it was checked out `overflowing`.
    func checkIn(_ connection: SerializedConnection, reusable: Bool, overflowed: Bool = false) {
        let kept = state.withLock { state in
            if reusable, !state.closed, state.all.count <= maximum {
                state.idle.append(connection)
                return true
            }
            state.all.removeAll { $0 === connection }
            return false
        }
        if !kept { try? connection.close() }
        if !overflowed { permits.signal() }
    }

    /// `body` on a checked-out connection; one left inside a transaction is closed rather than handed
    /// to the next reader mid-transaction.
    func withConnection<T>(overflowing: Bool = false, _ body: (Database) throws -> T) throws -> T {
        let connection = try checkOut(overflowing: overflowing)
        var reusable = true
        defer { checkIn(connection, reusable: reusable, overflowed: overflowing) }
        return try connection.sync { db in
            defer { reusable = !db.isInsideTransaction }
            return try body(db)
        }
    }

    /// Opens connections now, up to `count` in all (and `maximum`), rather than at first need.
    func open(upTo count: Int) throws {
        let missing = state.withLock { min(count, maximum) - $0.all.count }
        guard missing > 0 else { return }
        let made = try (0..<missing).map { _ in try make() }
        try state.withLock { state in
            guard !state.closed else { throw DatabaseError.connectionIsClosed() }
            state.idle += made
            state.all += made
        }
    }

    func forEach(_ body: (SerializedConnection) -> Void) {
        for connection in state.withLock({ $0.all }) { body(connection) }
    }

    /// Waits until every connection is back, closes them all; later check-outs fail.
    func close() throws {
        for _ in 0..<maximum { permits.wait() }
        defer { for _ in 0..<maximum { permits.signal() } }
        let connections = state.withLock { state in
            state.closed = true
            state.idle = []
            defer { state.all = [] }
            return state.all
        }
        for connection in connections { try connection.close() }
    }
}
