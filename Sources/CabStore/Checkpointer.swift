import CabSQLite
import Foundation
import Synchronization

/// Copies the WAL back into the database file on a thread of its own, so the writer's commits never pay
/// for a checkpoint's I/O (the writer runs with `wal_autocheckpoint=0`). WAL mode lets a passive checkpoint run
/// while the writer appends.
///
/// The writer asks for a pass after every commit (`request`, cheap; requests collapse into one pass), and passes
/// run at most every `spacing`, so the checkpoint trails the WAL by a few batches. The WAL only restarts from the
/// top when a write transaction begins with every frame copied, which a checkpoint running beside a steady stream
/// of commits never sees; left alone the WAL would grow without end (half a gigabyte in a minute of bookings). So
/// once the WAL is longer than the writer's limit, the writer waits between two batches for one pass begun after
/// its last commit (`catchUp`): that pass copies only the last few batches, and the next batch restarts the WAL.
/// The writer itself never checkpoints: its thread is the busiest in the process, and a blocking fsync on it costs
/// every booking in flight the scheduler's delay in waking it up again.
final class Checkpointer: @unchecked Sendable {
    // @unchecked Sendable: `connection` is used only by the checkpoint thread; `requested`, `urgent`, `started`
    // and `completed` are guarded by `stop.condition`.
    private let connection: Connection
    private let stop = StopSignal()
    private var condition: NSCondition { stop.condition }
    private var requested = false
    /// A `catchUp` is waiting: run the pass without waiting for `spacing`.
    private var urgent = false
    /// Least time between the end of one pass and the start of the next, in seconds, unless the writer waits
    /// for one: each pass copies the pages changed since the last (the hot ones again), so passes spaced 30 ms
    /// apart write each hot page about once per ten commits instead of once per commit.
    private let spacing: Double
    /// Passes begun and finished so far.
    private var started = 0
    private var completed = 0
    private let frames = Atomic<Int>(0)

    /// Frames in the WAL at the start of the last pass.
    var walFrames: Int { frames.load(ordering: .relaxed) }

    init(connection: Connection, spacing: Double = 0.030) {
        self.connection = connection
        self.spacing = spacing
        let thread = Thread { [self] in run() }
        thread.name = "cab-store-checkpoint"
        thread.start()
    }

    /// Asks for a pass soon (cheap; repeated requests collapse into one, and do not wake the thread again while
    /// it waits out `spacing`).
    func request() {
        condition.lock()
        if !requested {
            requested = true
            condition.signal()
        }
        condition.unlock()
    }

    /// Runs a pass that begins after this call and waits for it to finish: everything committed before the call
    /// is then copied into the database file (unless that pass failed or a reader still needed older frames).
    /// Returns at once when the checkpointer is closed.
    func catchUp() {
        condition.lock()
        let target = started + 1
        requested = true
        urgent = true
        condition.broadcast()
        while completed < target && !stop.closed { condition.wait() }
        condition.unlock()
        // The next commit restarts the WAL (if no reader holds older frames); until a pass says otherwise, count
        // it as short so that the writer does not wait again for the same frames.
        frames.store(0, ordering: .relaxed)
    }

    /// Runs a last, truncating checkpoint and stops the thread.
    func close() { stop.close() }

    private func run() {
        var lastEnd = Date.distantPast
        while true {
            condition.lock()
            while !requested && !stop.closed { condition.wait() }
            // Requests that come sooner than `spacing` after the last pass wait for it (a catch-up does not).
            let due = lastEnd.addingTimeInterval(spacing)
            while !urgent && !stop.closed && Date() < due { _ = condition.wait(until: due) }
            urgent = false
            let last = stop.closed
            requested = false
            started += 1
            condition.unlock()
            // A failed checkpoint loses nothing (the WAL keeps every commit); the next request retries it.
            let result = try? connection.query(
                last ? "PRAGMA wal_checkpoint(TRUNCATE)" : "PRAGMA wal_checkpoint(PASSIVE)"
            ) {
                $0.int(1)
            }
            if let logFrames = result?.first { frames.store(logFrames, ordering: .relaxed) }
            lastEnd = Date()
            condition.lock()
            completed += 1
            condition.broadcast()
            if last {
                stop.finish()
                condition.unlock()
                return
            }
            condition.unlock()
        }
    }
}
