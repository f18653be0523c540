import CabCore
import Dispatch

/// New bookings' starts: queued by `book` once durable, started side by side on lanes (`startLanes`), at most
/// `maximumStarting` at once.
extension DispatchCoordinator {
    /// Queues the start of offering; when the queue is full, starts it in the caller (the store's thread: the
    /// first search then delays that commit, which slows clients down instead of growing memory).
    func queueStart(_ item: NewBooking) {
        if newBookings.submit(item, process: { [weak self] in self?.startQueued($0) }) { return }
        startQueued(item)
    }

    /// Starts dispatch on queued bookings (stored as `dispatching` with the booking), side by side: each start
    /// waits on the store (its offers written under the shard's fence, its deadline), and one trip's write must
    /// not hold up another trip's first offer. At most `maximumStarting` run at once; beyond, the queue's drain
    /// waits here (the queue stays bounded) for one to finish.
    func startQueued(_ items: [NewBooking]) {
        for item in items {
            startSlots.wait()
            startLanes.async(for: item.booking.id, group: starting) { [weak self] in
                defer { self?.startSlots.signal() }
                self?.startQueued(item)
            }
        }
    }

    /// Starts dispatch on one queued booking: performs its first step's actions, unless the trip changed before
    /// its start came (then none of them: the change told the apps).
    func startQueued(_ item: NewBooking) {
        defer { state.withLock { _ = $0.pendingStarts.remove(item.booking.id) } }
        observe(.startQueue, item.durable.seconds)
        if case .elsewhere = ownership(of: item.booking.id) {
            // Another node owns the trip's shard: it hears the status below (`.shard`) and dispatches.
            guard state.withLock({ $0.movedBeforeStart.remove(item.booking.id) == nil }) else { return }
            perform(item.step.actions, for: item.booking, actor: .system)
            return
        }
        let heard = Double(now().milliseconds(since: item.booking.createdAt)) / 1_000
        if register(item.booking, unlessMoved: true, trace: FirstOfferTrace(seconds: [.heard: heard])) {
            perform(item.step.actions, for: item.booking, actor: .system)
        }
    }

    /// Blocks until every queued new booking has started dispatch (tests, shutdown).
    public func waitForQueuedBookings() {
        newBookings.waitUntilIdle()
        starting.wait()
    }

    /// Holds queued starts until `resumeQueuedStarts()` (tests of a change racing the start).
    package func suspendQueuedStarts() { newBookings.suspend() }

    /// Lets held starts run.
    package func resumeQueuedStarts() { newBookings.resume(process: { [weak self] in self?.startQueued($0) }) }
}
