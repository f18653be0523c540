import Foundation

/// The condition a store thread waits on, with its stop handshake: `close()` marks it closed, wakes the
/// thread and waits until the thread calls `finish()`. Owners guard their own queue state with `condition` too.
final class StopSignal: @unchecked Sendable {
    // @unchecked Sendable: `closed` and `finished` are only touched with `condition` locked.
    let condition = NSCondition()
    /// True once `close()` was called; read with `condition` locked.
    private(set) var closed = false
    private var finished = false

    /// Asks the thread to stop and waits until it has.
    func close() {
        condition.lock()
        closed = true
        condition.broadcast()
        while !finished { condition.wait() }
        condition.unlock()
    }

    /// Called by the thread, with `condition` locked, as its last act.
    func finish() {
        finished = true
        condition.broadcast()
    }
}
