import CabGeo
import Synchronization

/// What a subscription has when polled.
public enum FleetPoll<Key: Hashable & Sendable>: Sendable, Hashable {
    /// Events to send now, oldest first.
    case events([FleetEvent<Key>])
    /// Nothing yet: the waker given to `next` is called when there is.
    case pending
    /// The hub closed the subscription (or it was closed).
    case end
}

/// A `FleetFanOut` shared between the ingest path (publish, tick) and stream readers, with a waker per subscriber:
/// the pull shape of CabHTTP's `ResponseStream`, so the API layer adapts a `FleetSubscription` in a few lines.
public final class FleetBroadcaster<Key: Hashable & Sendable>: Sendable {
    struct State {
        var hub: FleetFanOut<Key>
        var wakers: [FleetFanOut<Key>.SubscriberID: @Sendable () -> Void] = [:]
    }

    /// A pthread lock, not `Synchronization.Mutex`: every woken stream drains under it, and on Linux the Mutex's
    /// contended path (a priority-inheritance futex) took a quarter of the CPU with 5,000 fleet streams.
    private let state: ReaderWriterLock<State>

    /// A hub with no subscribers.
    public init(configuration: FleetFanOut<Key>.Configuration = .init()) {
        state = ReaderWriterLock(State(hub: FleetFanOut(configuration: configuration)))
    }

    /// Records `driver`'s new position for the next tick.
    public func publish(_ driver: Key, at position: DriverPosition) {
        state.withWriteLock { $0.hub.publish(driver, at: position) }
    }

    /// Delivers the positions published since the last tick and wakes the subscribers that got any; the owner
    /// calls it on a timer (say every second) with the time (Unix milliseconds) stamped on the events.
    /// - Returns: the newest id this tick numbered here (not given by `publishNumbered`), nil when none.
    @discardableResult
    public func tick(now: Int64 = 0) -> UInt64? {
        let (wakers, numberedHere) = state.withWriteLock { state in
            (state.hub.tick(now: now).compactMap { state.wakers.removeValue(forKey: $0) }, state.hub.lastNumberedHere)
        }
        for wake in wakers { wake() }
        return numberedHere
    }

    /// Marks this hub as a cluster node's (`FleetFanOut.trustsResumeIDsAhead`).
    public func followCluster() { state.withWriteLock { $0.hub.trustsResumeIDsAhead = true } }

    /// Records events numbered elsewhere for the next tick; see `FleetFanOut.publishNumbered`.
    public func publishNumbered(_ events: [(id: UInt64, driver: Key, position: DriverPosition)]) {
        guard !events.isEmpty else { return }
        state.withWriteLock { $0.hub.publishNumbered(events) }
    }

    /// A new subscription; see `FleetFanOut.subscribe`.
    public func subscribe(boundingBox: BoundingBox? = nil, lastEventID: UInt64? = nil) -> FleetSubscription<Key> {
        let (id, missed) = state.withWriteLock { $0.hub.subscribe(boundingBox: boundingBox, lastEventID: lastEventID) }
        return FleetSubscription(hub: self, id: id, missedEvents: missed)
    }

    /// Numbered events dropped so far (`FleetFanOut.droppedNumbered`).
    public var droppedNumberedCount: Int { state.withReadLock { $0.hub.droppedNumbered } }

    /// How many subscriptions are open.
    public var subscriberCount: Int { state.withReadLock { $0.hub.subscriberCount } }

    func next(_ id: FleetFanOut<Key>.SubscriberID, limit: Int, waker: @escaping @Sendable () -> Void) -> FleetPoll<Key>
    {
        state.withWriteLock { state in
            guard let events = state.hub.drain(id, limit: limit) else { return .end }
            if !events.isEmpty { return .events(events) }
            state.wakers[id] = waker
            return .pending
        }
    }

    func counts(_ id: FleetFanOut<Key>.SubscriberID) -> (buffered: Int, dropped: Int) {
        state.withReadLock { ($0.hub.bufferedCount(for: id), $0.hub.droppedCount(for: id)) }
    }

    func close(_ id: FleetFanOut<Key>.SubscriberID) {
        state.withWriteLock { state in
            state.hub.unsubscribe(id)
            state.wakers[id] = nil
        }
    }
}

/// One reader of a `FleetBroadcaster`: poll with `next(waker:)`, `close()` when the client goes away.
public final class FleetSubscription<Key: Hashable & Sendable>: Sendable {
    private let hub: FleetBroadcaster<Key>
    private let id: FleetFanOut<Key>.SubscriberID
    /// Events asked for with `Last-Event-ID` that the replay ring no longer held.
    public let missedEvents: UInt64

    init(hub: FleetBroadcaster<Key>, id: FleetFanOut<Key>.SubscriberID, missedEvents: UInt64) {
        self.hub = hub
        self.id = id
        self.missedEvents = missedEvents
    }

    deinit { hub.close(id) }

    /// Up to `limit` buffered events, or `.pending` after registering `waker` (called once when events arrive).
    public func next(limit: Int = 256, waker: @escaping @Sendable () -> Void) -> FleetPoll<Key> {
        hub.next(id, limit: limit, waker: waker)
    }

    /// Events waiting, and events lost because this subscriber drained too slowly.
    public var counts: (buffered: Int, dropped: Int) { hub.counts(id) }

    /// Ends the subscription; later polls answer `.end`.
    public func close() { hub.close(id) }
}
