import CabSQLite
import Foundation
import Synchronization

/// Copies the WAL back into the database file on a thread of its own, so the writer's commits never pay
/// for a checkpoint's fsync (the writer runs with `wal_autocheckpoint=0`). WAL mode lets a passive
/// checkpoint run while the writer appends; the WAL restarts from the top once it is fully copied.
///
/// Under a steady stream of commits a checkpoint running beside the writer never catches up (new frames arrive
/// while it copies), so the WAL would grow without end — half a gigabyte in a minute of bookings, every commit
/// appending to an ever longer file. The writer therefore watches `walFrames` and, past `walRestartFrames`,
/// finishes the copy itself between two batches (`GroupCommitWriter`): only the frames this thread has not
/// copied yet, after which the next write starts the WAL from the top again.
final class Checkpointer: @unchecked Sendable {
    // @unchecked Sendable: `connection` is used only by the checkpoint thread; `requested` is guarded by
    // `stop.condition`.
    private let connection: Connection
    private let stop = StopSignal()
    private var condition: NSCondition { stop.condition }
    private var requested = false
    private let frames = Atomic<Int>(0)

    /// Frames in the WAL at the last checkpoint (this thread's or the writer's).
    var walFrames: Int { frames.load(ordering: .relaxed) }

    /// Records the WAL's length reported by a checkpoint (`PRAGMA wal_checkpoint`'s second column).
    func noteWALFrames(_ count: Int) { frames.store(count, ordering: .relaxed) }

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
            let result = try? connection.query(last ? "PRAGMA wal_checkpoint(TRUNCATE)" : "PRAGMA wal_checkpoint(PASSIVE)") {
                $0.int(1)
            }
            if let logFrames = result?.first { noteWALFrames(logFrames) }
            if last {
                condition.lock()
                stop.finish()
                condition.unlock()
                return
            }
        }
    }
}
