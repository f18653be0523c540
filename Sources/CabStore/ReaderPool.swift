import CabSQLite
import Foundation
import Synchronization

/// Read-only connections (WAL lets them read while the writer commits), each used by one thread at a time.
final class ReaderPool: Sendable {
    // A connection is in `free` or checked out by exactly one thread; `available` counts `free`.
    private let free: Mutex<[UncheckedConnection]>
    private let available: DispatchSemaphore

    /// Wraps a `Connection` so it can sit in the `Mutex`; only the thread that checked it out touches it.
    struct UncheckedConnection: @unchecked Sendable {
        let connection: Connection
    }

    private let health: StoreHealth?

    init(connections: [Connection], health: StoreHealth? = nil) {
        free = Mutex(connections.map(UncheckedConnection.init))
        available = DispatchSemaphore(value: connections.count)
        self.health = health
    }

    /// Runs `body` with a connection of its own, waiting for one when all are busy.
    func read<T>(_ body: (Connection) throws -> T) throws -> T {
        available.wait()
        let lease = free.withLock { $0.removeLast() }
        defer {
            free.withLock { $0.append(lease) }
            available.signal()
        }
        do {
            return try body(lease.connection)
        } catch {
            health?.record(error)
            throw StoreError.translating(error)
        }
    }
}
