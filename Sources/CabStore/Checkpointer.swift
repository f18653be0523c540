import CabSQLite
import Foundation

/// Copies the WAL back into the database file on a thread of its own, so the writer's commits never pay
/// for a checkpoint's fsync (the writer runs with `wal_autocheckpoint=0`). WAL mode lets a passive
/// checkpoint run while the writer appends; the WAL restarts from the top once it is fully copied.
final class Checkpointer: @unchecked Sendable {
    // @unchecked Sendable: `connection` is used only by the checkpoint thread; `requested` is guarded by
    // `stop.condition`.
    private let connection: Connection
    private let stop = StopSignal()
    private var condition: NSCondition { stop.condition }
    private var requested = false

    init(connection: Connection) {
        self.connection = connection
        let thread = Thread { [self] in run() }
        thread.name = "cab-store-checkpoint"
        thread.start()
    }

    /// Asks for a checkpoint soon (cheap; repeated requests collapse into one).
    func request() {
        condition.lock()
        requested = true
        condition.signal()
        condition.unlock()
    }

    /// Runs a last, truncating checkpoint and stops the thread.
    func close() { stop.close() }

    private func run() {
        while true {
            condition.lock()
            while !requested && !stop.closed { condition.wait() }
            let last = stop.closed
            requested = false
            condition.unlock()
            // A failed checkpoint loses nothing (the WAL keeps every commit); the next request retries it.
            _ = try? connection.query(last ? "PRAGMA wal_checkpoint(TRUNCATE)" : "PRAGMA wal_checkpoint(PASSIVE)") {
                $0.int(0)
            }
            if last {
                condition.lock()
                stop.finish()
                condition.unlock()
                return
            }
        }
    }
}
