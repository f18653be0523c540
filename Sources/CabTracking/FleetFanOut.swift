import CabGeo

/// One position on a fleet stream; `id` increases by one per event (the SSE `id:` line).
public struct FleetEvent<Key: Hashable & Sendable>: Hashable, Sendable {
    /// The event's number, for `Last-Event-ID`.
    public var id: UInt64
    /// The driver who moved.
    public var driver: Key
    /// Where the driver is now.
    public var position: DriverPosition
    /// When the tick that numbered it ran (Unix milliseconds; 0 when the owner gave no time): the server's send
    /// time, from which a client measures delivery latency.
    public var tickMilliseconds: Int64 = 0
}

/// Fleet subscriptions without I/O: positions published between ticks are coalesced to the newest per driver,
/// numbered at the tick, kept in a bounded replay ring and copied into each subscriber's bounded buffer
/// (only those inside its bounding box). A subscriber that drains slowly loses its oldest events, counted.
///
/// `FleetBroadcaster` wraps it in a lock with wakers for the HTTP layer.
public struct FleetFanOut<Key: Hashable & Sendable>: Sendable {
    /// Buffer sizes.
    public struct Configuration: Sendable, Hashable {
        /// Events buffered per subscriber before the oldest are dropped.
        public var bufferCapacity: Int
        /// Events kept for `Last-Event-ID` resumption.
        public var replayCapacity: Int
        /// The id of the first event (seed it from the clock so ids keep increasing across restarts).
        public var firstEventID: UInt64

        /// Creates a configuration.
        public init(bufferCapacity: Int = 2_048, replayCapacity: Int = 20_000, firstEventID: UInt64 = 1) {
            self.bufferCapacity = bufferCapacity
            self.replayCapacity = replayCapacity
            self.firstEventID = firstEventID
        }
    }

    /// A subscriber's handle.
    public struct SubscriberID: Hashable, Sendable {
        let rawValue: UInt64
    }

    struct Subscriber: Sendable {
        var boundingBox: BoundingBox?
        /// Events up to this id are not delivered (the client resumed after it; on a cluster node that is behind,
        /// events up to it may still arrive).
        var after: UInt64?
        var buffer: BoundedQueue<FleetEvent<Key>>
        var dropped = 0
    }

    /// The configuration.
    public let configuration: Configuration
    private var pendingPlace: [Key: Int] = [:]
    private var pending: [(driver: Key, position: DriverPosition)] = []
    private var pendingNumbered: BoundedQueue<FleetEvent<Key>>
    private var replay: BoundedQueue<FleetEvent<Key>>
    private var subscribers: [SubscriberID: Subscriber] = [:]
    private var nextSubscriber: UInt64 = 1
    /// The id the next event will get.
    public private(set) var nextEventID: UInt64
    /// The id of the newest event handed out; nil before the first.
    public private(set) var lastEventID: UInt64?
    /// The newest id the last tick numbered here (not given by `publishNumbered`); nil when it numbered none.
    public private(set) var lastNumberedHere: UInt64?
    /// True on a cluster node (events numbered elsewhere): a client resuming after an id this hub has not seen
    /// yet came from a node that had read further, and events up to it are not sent again, however far ahead.
    public var trustsResumeIDsAhead = false
    /// Numbered events dropped because their id was not above the newest event's (they came after this node
    /// numbered events of its own, e.g. while a cluster link was down), or because too many waited for a tick.
    public private(set) var droppedNumbered = 0

    /// A hub with no subscribers.
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
        replay = BoundedQueue(capacity: configuration.replayCapacity)
        pendingNumbered = BoundedQueue(capacity: max(configuration.replayCapacity, 65_536))
        nextEventID = configuration.firstEventID
    }

    /// Records `driver`'s new position for the next tick, replacing one published earlier in this tick.
    /// - Complexity: O(1).
    public mutating func publish(_ driver: Key, at position: DriverPosition) {
        if let place = pendingPlace[driver] {
            pending[place].position = position
        } else {
            pendingPlace[driver] = pending.count
            pending.append((driver, position))
        }
    }

    /// Records events numbered elsewhere (a cluster's dense ids, in increasing order) for the next tick, which
    /// hands them out before this node's own, uncoalesced and with their ids; one whose id is not above the
    /// newest event's is dropped (counted). At most `replayCapacity` (65,536 or more) wait; beyond, the oldest are
    /// dropped.
    /// - Complexity: O(events).
    public mutating func publishNumbered(_ events: [(id: UInt64, driver: Key, position: DriverPosition)]) {
        for e in events where pendingNumbered.push(FleetEvent(id: e.id, driver: e.driver, position: e.position)) != nil
        {
            droppedNumbered += 1
        }
    }

    /// Hands out the numbered events recorded since the last tick, then numbers the positions published since
    /// and hands them out; returns the subscribers that received any (to wake).
    /// - Complexity: O(positions x subscribers).
    public mutating func tick(now: Int64 = 0) -> [SubscriberID] {
        lastNumberedHere = nil
        guard !pending.isEmpty || !pendingNumbered.isEmpty else { return [] }
        var events: [FleetEvent<Key>] = []
        events.reserveCapacity(pending.count + pendingNumbered.count)
        while var event = pendingNumbered.popFirst() {
            if let last = lastEventID, event.id <= last {
                droppedNumbered += 1
                continue
            }
            event.tickMilliseconds = now
            nextEventID = event.id + 1
            lastEventID = event.id
            replay.push(event)
            events.append(event)
        }
        for (driver, position) in pending {
            let event = FleetEvent(id: nextEventID, driver: driver, position: position, tickMilliseconds: now)
            lastEventID = nextEventID
            lastNumberedHere = nextEventID
            nextEventID += 1
            replay.push(event)
            events.append(event)
        }
        pending.removeAll(keepingCapacity: true)
        pendingPlace.removeAll(keepingCapacity: true)
        var woken: [SubscriberID] = []
        for id in subscribers.keys {
            // The key comes from the dictionary being walked, so the entry exists.
            if subscribers[id]!.deliver(events) { woken.append(id) }
        }
        return woken
    }

    /// Adds a subscriber for drivers inside `boundingBox` (nil: all). With `lastEventID` (from `Last-Event-ID`)
    /// its buffer starts with the replayed events after that id; `missedEvents` counts those no longer kept.
    public mutating func subscribe(boundingBox: BoundingBox? = nil, lastEventID: UInt64? = nil)
        -> (id: SubscriberID, missedEvents: UInt64)
    {
        let id = SubscriberID(rawValue: nextSubscriber)
        nextSubscriber += 1
        var subscriber = Subscriber(
            boundingBox: boundingBox, buffer: BoundedQueue(capacity: configuration.bufferCapacity))
        var missed: UInt64 = 0
        if let last = lastEventID {
            let newest = self.lastEventID ?? nextEventID - 1
            if last < newest {
                let oldestKept = replay.first?.id ?? newest + 1
                missed = oldestKept > last + 1 ? oldestKept - last - 1 : 0
                _ = subscriber.deliver(replay.elements.filter { $0.id > last })
            }
            // A client ahead (it was on a cluster node that had read further): what it has is not sent again. On a
            // single node an id far ahead is not one of this stream's (an earlier run's, say): it gets everything.
            if trustsResumeIDsAhead || last <= newest + UInt64(configuration.replayCapacity) { subscriber.after = last }
        }
        subscribers[id] = subscriber
        return (id, missed)
    }

    /// Removes and returns up to `limit` of `subscriber`'s buffered events, oldest first; nil when unknown.
    public mutating func drain(_ subscriber: SubscriberID, limit: Int = .max) -> [FleetEvent<Key>]? {
        guard subscribers[subscriber] != nil else { return nil }
        var events: [FleetEvent<Key>] = []
        while events.count < limit, let event = subscribers[subscriber]!.buffer.popFirst() { events.append(event) }
        return events
    }

    /// How many events `subscriber` lost to a full buffer.
    public func droppedCount(for subscriber: SubscriberID) -> Int { subscribers[subscriber]?.dropped ?? 0 }

    /// Events waiting in `subscriber`'s buffer.
    public func bufferedCount(for subscriber: SubscriberID) -> Int { subscribers[subscriber]?.buffer.count ?? 0 }

    /// How many subscribers there are.
    public var subscriberCount: Int { subscribers.count }

    /// Removes `subscriber` and its buffer.
    public mutating func unsubscribe(_ subscriber: SubscriberID) {
        subscribers[subscriber] = nil
    }
}

extension FleetFanOut.Subscriber {
    /// Buffers the events inside the box; true when any arrived.
    mutating func deliver(_ events: [FleetEvent<Key>]) -> Bool {
        var any = false
        for event in events where (boundingBox?.contains(event.position.coordinate) ?? true) && event.id > (after ?? 0)
        {
            if buffer.push(event) != nil { dropped += 1 }
            any = true
        }
        return any
    }
}
