import CabCore
import CabGeo
import CabTracking

extension DispatchCoordinator {
    /// Fires what is due at `now()`: batch timeouts, trip timeouts (dispatch deadline, no-show), and for every
    /// trip with a driver not yet sent its driver's newest position (a move sends it at once, `driversMoved`; the
    /// tick sends what that did not, such as a coordinator without tracking's), the ETA recomputed by road, and
    /// arrival alerts.
    public func tick() {
        let t = now()
        fireBatchTimers(at: t)
        fireTripTimeouts(at: t)
        sweepIfSharded()
        let followed = state.withLock { Array($0.following.keys) }
        for trip in followed { follow(trip) }
    }

    /// Ends the batches whose timers are due at `t` (each once: its timer is cleared under the lock first).
    func fireBatchTimers(at t: Instant) {
        let due = state.withLock { s in
            // Collected first, then cleared: clearing while iterating would copy the whole dictionary.
            let due = s.dispatching.compactMap { id, d -> BookingID? in
                guard let timer = d.timer, timer <= t else { return nil }
                return id
            }
            for id in due { s.dispatching[id]?.timer = nil }
            return due
        }
        for trip in due { runDispatch(trip) { $0.timerFired(at: $1) } }
    }

    /// Sets what is told each batch timer as it is set (`DispatchTicker`), nil to stop.
    package func onTimerSet(_ wake: (@Sendable (Instant) -> Void)?) { timerWake.withLock { $0 = wake } }

    /// Ends the batches due now: what a wake-up armed for a batch timer calls (`DispatchTicker`).
    public func fireDueBatchTimers() { fireBatchTimers(at: now()) }

    /// Milliseconds from now until `t` on this coordinator's clock (negative when past).
    func millisecondsUntil(_ t: Instant) -> Int64 { t.milliseconds(since: now()) }

    /// `drivers` moved (tracking accepted their fixes here, or another node's came in): the trips they drive get
    /// their follow-up (position, ETA, alerts) now, on `followQueue`, instead of at the next tick. Quick on the
    /// caller's thread: one look-up per driver; trips already due wait for the run already queued.
    func driversMoved(_ drivers: [DriverID]) {
        let queue = state.withLock { s -> Bool in
            var due = false
            for d in drivers {
                guard let trip = s.tripOfDriver[d] else { continue }
                s.followsDue.insert(trip)
                due = true
            }
            guard due, !s.followRunQueued else { return false }
            s.followRunQueued = true
            return true
        }
        if queue { followQueue.async { [weak self] in self?.followDue() } }
    }

    /// Blocks until the follow-ups queued by moves so far have run (tests).
    package func waitForFollowUps() { followQueue.sync {} }

    /// Follows the trips `driversMoved` found due.
    private func followDue() {
        let trips = state.withLock { s in
            s.followRunQueued = false
            defer { s.followsDue.removeAll(keepingCapacity: true) }
            return Array(s.followsDue)
        }
        for trip in trips { follow(trip) }
    }

    /// The system's timed transitions (no_driver_found at the dispatch deadline, no_show after the wait).
    func fireTripTimeouts(at t: Instant) {
        let bookings = state.withLock { s in
            var due: [Booking] = []
            for d in s.dispatching.values { if let at = d.deadline, at <= t { due.append(d.booking) } }
            for f in s.following.values { if let at = f.deadline, at <= t { due.append(f.booking) } }
            return due
        }
        for b in bookings {
            let machine = TripStateMachine(booking: b, tariff: tariff, table: configuration.table)
            guard let command = machine.dueTimeout(at: t) else { continue }
            do {
                _ = try transition(command, b.id, by: .system, at: t)
            } catch let error as CoreError where error.code == .illegalTransition {
                // The trip moved on meanwhile: on a cluster, most often another node's sweep fired this timeout.
                log.debug("timeout already past", metadata: ["trip": "\(b.id.rawValue)", "error": "\(error)"])
            } catch {
                log.error("timeout not applied", metadata: ["trip": "\(b.id.rawValue)", "error": "\(error)"])
            }
        }
    }

    /// Sends `id`'s driver's newest position, ETA and due alerts when the driver moved since the last time.
    /// Follow-ups run one at a time (`followGate`), from a tick or a move alike, each reading the trip as it is
    /// then: none sends a position twice or an older one after a newer.
    private func follow(_ id: BookingID) {
        followGate.withLock { _ in
            guard let f = state.withLock({ $0.following[id] }) else { return }
            followUp(f)
        }
    }

    private func followUp(_ f: Following) {
        let id = f.booking.id
        guard let p = fleet.position(of: f.driver), p.timeMilliseconds != f.lastFixTime else { return }
        let position = TripPosition(p)
        var etaSeconds: Int?
        var dropoffSeconds: Int?
        func roadSeconds(to target: Coordinate) -> Int? {
            (eta.durationsMilliseconds(from: [p.coordinate], to: target).first ?? nil).map { ($0 + 999) / 1000 }
        }
        switch f.booking.status {
        case .accepted, .arriving: etaSeconds = roadSeconds(to: f.booking.pickup)
        case .inProgress: dropoffSeconds = roadSeconds(to: f.booking.dropoff)
        default: break
        }
        let alerts: [ArrivalAlert] = state.withLock { s in
            guard var current = s.following[id] else { return [] }
            current.lastFixTime = p.timeMilliseconds
            current.position = position
            current.etaSeconds = etaSeconds
            current.dropoffETASeconds = dropoffSeconds
            let alerts = etaSeconds.map { current.alerts.etaChanged(toSeconds: $0) } ?? []
            s.following[id] = current
            return alerts
        }
        bus.publish(.position(position), to: .trip(id))
        if let etaSeconds { bus.publish(.pickupETA(seconds: etaSeconds), to: .trip(id)) }
        if let dropoffSeconds { bus.publish(.dropoffETA(id, seconds: dropoffSeconds), to: .trip(id)) }
        for a in alerts where isFirstAlert(a, of: id) { bus.publish(.alert(a), to: .trip(id)) }
    }

    /// On a cluster, whether `alert` of `trip` was not sent before, by this owner or the trip's previous one: the
    /// first to mark its threshold (`markAlert`, under the fence) sends it. One node: always.
    private func isFirstAlert(_ alert: ArrivalAlert, of trip: BookingID) -> Bool {
        guard let sharded, let threshold = alert.thresholdSeconds else { return true }
        guard case .owned(let fence) = ownership(of: trip) else { return false }
        do {
            return try sharded.store.markAlert(of: trip, thresholdSeconds: threshold, under: fence)
        } catch let error as CoreError where error.code == .staleFence {
            lostShard(fence.shard, error)
            return false
        } catch {
            log.error("alert mark not stored", metadata: ["trip": "\(trip.rawValue)", "error": "\(error)"])
            return true  // better twice than never
        }
    }

    /// The latest position and ETA known for `trip` (for a new follower and the tracking JSON).
    public func liveView(of trip: BookingID) -> (position: TripPosition?, etaSeconds: Int?) {
        state.withLock { s in s.following[trip].map { ($0.position, $0.etaSeconds) } ?? (nil, nil) }
    }

    /// `liveView(of:)` of `booking`, also where this node does not follow it (another node of a cluster
    /// dispatched it): the position is its driver's latest in the fleet (which the cluster replicates) when that
    /// is newer than the one the follower took at its last tick, and the ETA comes with the next notification the
    /// following node sends. A node thawed from a pause had the follower's position from before it and the
    /// fleet's newest: a new rider stream started a fix behind and stayed so until the driver moved again.
    public func liveView(of booking: Booking) -> (position: TripPosition?, etaSeconds: Int?) {
        let followed = liveView(of: booking.id)
        guard !booking.status.isTerminal, let driver = booking.driverID, let p = fleet.position(of: driver) else {
            return followed
        }
        let latest = TripPosition(p)
        if let position = followed.position, position.time >= latest.time { return followed }
        return (latest, followed.etaSeconds)
    }

    /// The latest road ETA to the drop-off of `trip` during the ride (for a new follower).
    public func dropoffETA(of trip: BookingID) -> Int? {
        state.withLock { $0.following[trip]?.dropoffETASeconds }
    }
}

extension TripPosition {
    /// The trip's view of a fleet position.
    fileprivate init(_ p: DriverPosition) {
        self.init(
            coordinate: p.coordinate, headingDegrees: p.headingDegrees,
            time: Instant(millisecondsSinceEpoch: p.timeMilliseconds))
    }
}
