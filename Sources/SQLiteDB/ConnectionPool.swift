import Basics
import Dispatch

/// A pool's reader connections: made on demand up to `maximum`, reused, waited for when all are
/// out.
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

    func checkOut() throws -> SerializedConnection {
        permits.wait()
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
            permits.signal()
            throw error
        }
    }

    /// `reusable` false: the connection is closed (a transaction it could not end).
    func checkIn(_ connection: SerializedConnection, reusable: Bool) {
        state.withLock { state in
            if reusable {
                state.idle.append(connection)
            } else {
                state.all.removeAll { $0 === connection }
            }
        }
        if !reusable { try? connection.close() }
        permits.signal()
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
