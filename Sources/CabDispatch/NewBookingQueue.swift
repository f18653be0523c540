import CabCore
import Dispatch
import Synchronization

/// New bookings waiting for dispatch to start, handed over by request threads so that a `201` does not wait for
/// the `requested → dispatching` write and the first search. One drain at a time takes everything queued (up to
/// `batchSize`) and gives it to `process` as one batch, so one group commit carries the whole batch.
///
/// Bounded: when `capacity` bookings are waiting, `submit` refuses and the caller starts dispatch itself (the
/// request then pays for it, which slows the clients down instead of growing memory).
final class NewBookingQueue<Item: Sendable>: Sendable {
    private struct State {
        var pending: [Item] = []
        var draining = false
        /// Held by `suspend()`: items wait until `resume`.
        var suspended = false
    }

    private let state = Mutex(State())
    private let idle = DispatchGroup()
    private let queue = DispatchQueue(label: "swiftcab.dispatch.new-bookings")
    let capacity: Int
    let batchSize: Int

    /// A queue of at most `capacity` bookings, handing at most `batchSize` at a time to `submit`'s `process`.
    init(capacity: Int = 10_000, batchSize: Int = 256) {
        precondition(capacity > 0 && batchSize > 0, "a queue holds at least one booking")
        self.capacity = capacity
        self.batchSize = batchSize
    }

    /// Queues `booking` for `process` (always the same owner's function); false when the queue is full (nothing
    /// was queued).
    func submit(_ booking: Item, process: @escaping @Sendable ([Item]) -> Void) -> Bool {
        let startDrain: Bool? = state.withLock { s in
            guard s.pending.count < capacity else { return nil }
            s.pending.append(booking)
            if s.draining || s.suspended { return false }
            s.draining = true
            return true
        }
        guard let startDrain else { return false }
        if startDrain {
            idle.enter()
            queue.async { [self] in drain(process) }
        }
        return true
    }

    /// Holds queued items (they wait, bounded as ever) until `resume` (tests of what races a queued start).
    func suspend() { state.withLock { $0.suspended = true } }

    /// Lets held items go to `process`.
    func resume(process: @escaping @Sendable ([Item]) -> Void) {
        let startDrain = state.withLock { s -> Bool in
            s.suspended = false
            guard !s.draining, !s.pending.isEmpty else { return false }
            s.draining = true
            return true
        }
        if startDrain {
            idle.enter()
            queue.async { [self] in drain(process) }
        }
    }

    /// Blocks until every queued booking has been processed (tests; shutdown).
    func waitUntilIdle() { idle.wait() }

    private func drain(_ process: @Sendable ([Item]) -> Void) {
        while true {
            let batch: [Item] = state.withLock { s in
                let batch = Array(s.pending.prefix(batchSize))
                s.pending.removeFirst(batch.count)
                if batch.isEmpty { s.draining = false }
                return batch
            }
            guard !batch.isEmpty else { break }
            process(batch)
        }
        idle.leave()
    }
}
