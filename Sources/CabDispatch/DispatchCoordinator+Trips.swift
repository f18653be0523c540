import CabCore
import CabGeo
import CabTracking

extension DispatchCoordinator {
    /// `driver` accepts `trip`: only while holding an open offer; the store's compare-and-set picks one winner
    /// among racing accepts and a racing rider cancel; the loser gets a 409 naming the state that won.
    public func accept(_ trip: BookingID, by driver: DriverID) throws -> Booking {
        let t = now()
        if sharded != nil {
            // On a cluster the database holds the offers: one transaction checks the driver's is open, stores
            // the accept by compare-and-set and closes the others, whichever node made them.
            guard let current = try store.booking(trip) else { throw CoreError(.notFound, "No booking \(trip).") }
            if current.status != .dispatching { throw CoreError.illegalTransition(.accept, in: current.status) }
            try requireFree(driver, for: trip)
            let local = openOffer(of: trip, to: driver, at: t).map { t.adding(seconds: $0.etaSeconds) }
            let promised = local.flatMap { $0 > t ? $0 : nil } ?? roadPickupTime(of: current, by: driver, at: t)
            return try transition(
                .accept(driver), trip, by: .driver(driver), at: t, adjust: { $0.promisedPickupAt = promised },
                acceptingOffer: true)
        }
        guard let offer = openOffer(of: trip, to: driver, at: t) else {
            guard let current = try store.booking(trip) else { throw CoreError(.notFound, "No booking \(trip).") }
            if current.status != .dispatching { throw CoreError.illegalTransition(.accept, in: current.status) }
            throw CoreError(
                .offerNotOpen, "This trip is not offered to you (or the offer expired); wait for the next offer.")
        }
        try requireFree(driver, for: trip)
        return try transition(.accept(driver), trip, by: .driver(driver), at: t) { booking in
            booking.promisedPickupAt = t.adding(seconds: offer.etaSeconds)
        }
    }

    /// The offer of `trip` to `driver` still open at `t`: this node's dispatch's, or on a cluster the one another
    /// node made (its bus keeps each driver's open offer), so a driver whose accept lands on another node than
    /// the one dispatching the trip can take it; the store's compare-and-set still picks one winner.
    func openOffer(of trip: BookingID, to driver: DriverID, at t: Instant) -> DispatchOffer? {
        if let local = state.withLock({ $0.dispatching[trip]?.machine.openOffers[driver] }) {
            return t < local.expiresAt ? local : nil
        }
        guard bus.spansNodes, let made = bus.openOffer(for: driver, at: t), made.tripID == trip else { return nil }
        return DispatchOffer(driver: driver, etaSeconds: made.etaSeconds, expiresAt: made.expiresAt)
    }

    /// `driver` declines the offer of `trip`: dispatch moves on and never offers it to them again.
    public func decline(_ trip: BookingID, by driver: DriverID) throws -> Booking {
        guard let current = try store.booking(trip) else { throw CoreError(.notFound, "No booking \(trip).") }
        let held = state.withLock { $0.dispatching[trip]?.machine.openOffers[driver] != nil }
        if let sharded {
            // On a cluster: the offer closed and the decline stored in one transaction, on any node.
            guard try sharded.store.declineOffer(of: trip, by: driver, at: now()) else {
                if current.status != .dispatching { throw CoreError.illegalTransition(.accept, in: current.status) }
                throw CoreError(.offerNotOpen, "This trip is not offered to you; there is nothing to decline.")
            }
            state.withLock { s in if s.offerHeld[driver] == trip { s.offerHeld[driver] = nil } }
            // The offer leaves the driver's screens on every node, whichever node dispatches the trip.
            bus.publish(.offerWithdrawn(trip, reason: "declined"), to: .driver(driver))
            if held {
                runDispatch(trip) { $0.declined(by: driver, at: $1) }
            } else {
                // Dispatched elsewhere: its shard's owner moves the batch on at once (`heardDecline`).
                bus.publish(.declined(trip, by: driver), to: .shard(DispatchShard(of: trip)))
            }
            return current
        }
        if !held, current.status == .dispatching, openOffer(of: trip, to: driver, at: now()) != nil {
            // Another node of the cluster made the offer: the decline is stored (that node's dispatch never
            // offers the trip to this driver again, and a resumed dispatch reads it) and the offer taken off the
            // driver's screens; the other node's batch moves on when the offer lapses.
            try store.recordDecline(of: trip, by: driver, at: now())
            bus.publish(.offerWithdrawn(trip, reason: "declined"), to: .driver(driver))
            return current
        }
        guard held else {
            if current.status != .dispatching { throw CoreError.illegalTransition(.accept, in: current.status) }
            throw CoreError(.offerNotOpen, "This trip is not offered to you; there is nothing to decline.")
        }
        // Durable first, so that dispatch resumed after a restart does not offer the trip to this driver again.
        try store.recordDecline(of: trip, by: driver, at: now())
        state.withLock { s in if s.offerHeld[driver] == trip { s.offerHeld[driver] = nil } }
        runDispatch(trip) { $0.declined(by: driver, at: $1) }
        return current
    }

    /// A dispatcher assigns `driver` by hand (from `requested` or `dispatching`); open offers are withdrawn.
    public func assign(_ trip: BookingID, to driver: DriverID, by dispatcher: Principal) throws -> Booking {
        guard try store.driver(driver) != nil else { throw CoreError(.notFound, "No driver \(driver).") }
        try requireFree(driver, for: trip)
        let t = now()
        let promised = try store.booking(trip).flatMap { roadPickupTime(of: $0, by: driver, at: t) }
        return try transition(.assign(driver), trip, by: dispatcher, at: t) { $0.promisedPickupAt = promised }
    }

    /// When `driver` would reach `booking`'s pickup by road from their latest position, leaving at `t`.
    func roadPickupTime(of booking: Booking, by driver: DriverID, at t: Instant) -> Instant? {
        guard let p = fleet.position(of: driver),
            let ms = eta.durationsMilliseconds(from: [p.coordinate], to: booking.pickup).first ?? nil
        else { return nil }
        return t.adding(milliseconds: Int64(ms))
    }

    /// The driver of `trip` completes it: the fare comes from every fix the driver took from pickup up to now
    /// (the stored trail, with every fix accepted so far written first) and the time since pickup, with the
    /// tariff. With fewer than two fixes, from the booked route's distance and duration instead (the receipt
    /// says so: `basis` `booked_route`).
    public func complete(_ trip: BookingID, by actor: Principal) throws -> Booking {
        let t = now()
        guard let current = try store.booking(trip) else { throw CoreError(.notFound, "No booking \(trip).") }
        var command = TripCommand.complete(
            distanceMeters: current.routeDistanceMeters, durationSeconds: current.routeDurationSeconds,
            basis: .bookedRoute)
        if let driver = current.driverID, let start = current.pickedUpAt {
            tracking?.history.flush()  // the trail must hold every fix accepted so far
            // Up to now, or to the newest accepted fix when the phone's clock runs a little ahead of ours.
            let newest = fleet.position(of: driver).map { Instant(millisecondsSinceEpoch: $0.timeMilliseconds) } ?? t
            let trail = try store.trail(
                of: driver, from: start, to: max(t, newest).adding(milliseconds: 1), limit: 1_000_000)
            if trail.count >= 2 {
                var total = 0.0
                for (a, b) in zip(trail, trail.dropFirst()) { total += a.coordinate.distanceMeters(to: b.coordinate) }
                command = .complete(
                    distanceMeters: Int(total.rounded()),
                    durationSeconds: Int(max(0, t.milliseconds(since: start)) / 1000),
                    basis: .trail, trailPolyline: Self.thinnedPolyline(trail.map(\.coordinate)))
            }
        }
        return try transition(command, trip, by: actor, at: t)
    }

    /// `points` as a polyline of at most `TripReceipt.maximumTrailPoints` points (evenly thinned, ends kept).
    static func thinnedPolyline(_ points: [Coordinate]) -> String {
        let limit = TripReceipt.maximumTrailPoints
        guard points.count > limit else { return Polyline.encode(points) }
        let stride = Double(points.count - 1) / Double(limit - 1)
        let kept = (0..<limit).map { points[min(points.count - 1, Int((Double($0) * stride).rounded()))] }
        return Polyline.encode(kept)
    }

    /// `actor` marks the driver's arrival at the pickup. The driver needs a fix no older than
    /// `arrivalFixMaxAgeSeconds` within `arrivalMaxDistanceMeters` of the pickup (`no_recent_position`,
    /// `too_far_from_pickup`, both 409); a dispatcher with `override` marks it anyway.
    public func arrive(_ trip: BookingID, by actor: Principal, override: Bool = false) throws -> Booking {
        let t = now()
        guard let current = try store.booking(trip) else { throw CoreError(.notFound, "No booking \(trip).") }
        var trial = TripStateMachine(booking: current, tariff: tariff, table: configuration.table)
        _ = try trial.handle(.arrive, by: actor, at: t)  // state, role and ownership first
        if !(override && actor.role == .dispatcher), let driver = current.driverID {
            let you = actor.role == .driver ? "You are" : "The driver is"
            let age = configuration.arrivalFixMaxAgeSeconds
            guard let p = fleet.position(of: driver), t.millisecondsSinceEpoch - p.timeMilliseconds <= Int64(age) * 1000
            else {
                throw CoreError(
                    .noRecentPosition,
                    "SwiftCab has no position of \(actor.role == .driver ? "yours" : "the driver's") from the last \(age) s, "
                        + "so it can't tell that \(actor.role == .driver ? "you are" : "they are") at the pickup; turn on "
                        + "location sharing, wait for the map to show \(actor.role == .driver ? "you" : "them") there, and try again."
                )
            }
            let meters = p.coordinate.distanceMeters(to: current.pickup)
            let limit = configuration.arrivalMaxDistanceMeters
            guard meters <= limit else {
                throw CoreError(
                    .tooFarFromPickup,
                    "\(you) \(Int(meters.rounded())) m from the pickup; mark the arrival within \(Int(limit)) m of it, "
                        + "when the rider can see the car.")
            }
        }
        return try transition(.arrive, trip, by: actor, at: t)
    }

    /// Hands `trip` back to dispatch: the driver cancelling after accepting (`driver_cancelled`) or a dispatcher
    /// re-dispatching (`dispatcher`). The trip goes back to `dispatching` at once and is offered to other drivers.
    public func redispatch(_ trip: BookingID, by actor: Principal) throws -> Booking {
        let reason: RedispatchReason = actor.role == .driver ? .driverCancelled : .dispatcher
        return try transition(.redispatch(reason: reason), trip, by: actor, at: now())
    }

    /// A dispatcher cancels `trip` from any open state: before a driver has it for the rider (`rider_cancel`,
    /// free), after that for the driver's side (`driver_cancel`, no fee for the rider).
    public func dispatcherCancel(_ trip: BookingID, by actor: Principal, reason: String) throws -> Booking {
        guard let current = try store.booking(trip) else { throw CoreError(.notFound, "No booking \(trip).") }
        let command: TripCommand =
            current.status == .requested || current.status == .dispatching
            ? .riderCancel(reason: reason) : .driverCancel(reason: reason)
        return try transition(command, trip, by: actor, at: now())
    }

    /// Any other trip command by `actor` (depart, arrive, start with the rider's code, cancel, no-show).
    /// `arrive` goes through `arrive(_:by:override:)` (the driver's position is checked).
    public func handle(_ command: TripCommand, _ trip: BookingID, by actor: Principal) throws -> Booking {
        if command == .arrive { return try arrive(trip, by: actor) }
        return try transition(command, trip, by: actor, at: now())
    }

    /// The rider (or a dispatcher for them, through the booking endpoints) cancels `trip`: free before a driver
    /// has it or within the grace period, else the tariff's fee (the state machine decides).
    public func riderCancel(_ trip: BookingID, by actor: Principal, reason: String) throws -> Booking {
        try transition(.riderCancel(reason: reason), trip, by: actor, at: now())
    }

    /// Reads, applies `command` with the state machine (then `adjust`, for accept and assign), stores with a
    /// compare-and-set, retrying on a lost race so the command is judged against the winner's state; then performs
    /// the actions. On a cluster the same transaction writes the trip's next deadline and, for a driver's accept
    /// (`acceptingOffer`), checks the offer is open (`FencedDispatchRepository`).
    func transition(
        _ command: TripCommand, _ trip: BookingID, by actor: Principal, at t: Instant,
        adjust: (inout Booking) -> Void = { _ in }, acceptingOffer: Bool = false
    ) throws -> Booking {
        let sharded = self.sharded
        for _ in 0..<3 {
            guard let current = try store.booking(trip) else { throw CoreError(.notFound, "No booking \(trip).") }
            var machine = TripStateMachine(booking: current, tariff: tariff, table: configuration.table)
            let step = try machine.handle(command, by: actor, at: t)
            guard let record = step.record else { return current }
            var updated = machine.booking
            if command.event == .accept || command.event == .assign { adjust(&updated) }
            let stored: Bool = try gates.withGate(trip) {
                let dispatchedHere = state.withLock { $0.dispatching[trip] != nil }
                var withdrawn: [DriverID] = []
                do {
                    if let sharded {
                        let next = nextDeadline(of: updated)
                        withdrawn =
                            acceptingOffer
                            ? try sharded.store.acceptOffer(updated, record: record, then: next)
                            : try sharded.store.transition(updated, record: record, then: next)
                    } else {
                        try store.transition(updated, record: record)
                    }
                } catch let error as CoreError where error.code == .transitionConflict {
                    return false
                }
                after(updated, step, actor: actor)  // under the gate: both apps hear of it before a later transition
                if !dispatchedHere {
                    // Dispatched on another node (or nowhere, its owner gone): the offers this withdrew in the
                    // database leave the drivers' screens from here, not only when the owner hears of it.
                    let reason: OfferWithdrawal = updated.status == .accepted ? .taken : .cancelled
                    for driver in withdrawn {
                        bus.publish(.offerWithdrawn(trip, reason: reason.rawValue), to: .driver(driver))
                    }
                }
                return true
            }
            if stored { return updated }
        }
        let latest = try store.booking(trip)
        throw CoreError.illegalTransition(command.event, in: latest?.status ?? .requested)
    }

    /// Starts `receiver` following `trip` for a new stream: subscribes a `TripFollower` first, then reads the
    /// trip and hands it to `snapshot` (nil: no such booking), which sends what the stream starts from; what
    /// arrived meanwhile is passed on after it, a status only if newer than the booking read. Returns the
    /// follower to unsubscribe (`unfollow`) when the stream closes, or nil when there is nothing to follow (no
    /// such booking, or the trip is over).
    public func follow(
        _ trip: BookingID, with receiver: any TripNotificationReceiver, snapshot: (Booking?) throws -> Void
    ) throws -> TripFollower? {
        let follower = TripFollower(receiver)
        bus.subscribe(follower, to: .trip(trip))
        let booking: Booking?
        do {
            booking = try store.booking(trip)
            try snapshot(booking)
        } catch {
            bus.unsubscribe(follower, from: .trip(trip))
            throw error
        }
        guard let booking, !booking.status.isTerminal else {
            bus.unsubscribe(follower, from: .trip(trip))
            return nil
        }
        follower.open(after: booking.version)
        return follower
    }

    /// Stops `follower` (from `follow`) following `trip`.
    public func unfollow(_ follower: TripFollower, _ trip: BookingID) {
        bus.unsubscribe(follower, from: .trip(trip))
    }

    /// After a stored transition: keeps the coordinator's own copies in step (a queued start of a trip that
    /// changed is dropped; a followed trip's booking and deadline are the stored ones), then performs the
    /// machine's actions.
    func after(_ booking: Booking, _ step: TripStep, actor: Principal) {
        let id = booking.id
        let due = deadline(of: booking)
        state.withLock { s in
            if step.record?.from == .dispatching, s.dispatching[id] == nil {
                // A trip admitted as `dispatching` whose dispatch has not started yet (still queued): drop the start.
                if s.movedBeforeStart.count >= 4_096 { s.movedBeforeStart.removeAll() }  // stale ids of races lost
                s.movedBeforeStart.insert(id)
            }
            s.following[id]?.booking = booking
            s.following[id]?.deadline = due
        }
        perform(step.actions, for: booking, actor: actor)
    }

    /// Performs the state machine's actions: tell the rider's followers and the driver, free the driver, start
    /// dispatch.
    func perform(_ actions: [TripAction], for booking: Booking, actor: Principal) {
        let id = booking.id
        for action in actions {
            switch action {
            case .notifyRider(let status):
                let driver = booking.driverID.flatMap { try? store.driver($0) }
                bus.publish(.status(id, status, driver: driver, version: booking.version), to: .trip(id))
                if status == .accepted, let driver { bus.publish(.driver(driver), to: .trip(id)) }
            case .notifyDriver(let driver, let status):
                if status.isTerminal {
                    bus.publish(.tripEnded(id, by: actor.role, status: status), to: .driver(driver))
                } else {
                    bus.publish(.assigned(id, status: status), to: .driver(driver))
                }
            case .redispatch(let driver, let reason):
                state.withLock { $0.stopFollowing(id) }
                bus.publish(.redispatch(id, reason: reason), to: .trip(id))
                bus.publish(.tripTakenBack(id, by: actor.role, reason: reason), to: .driver(driver))
                restartDispatch(booking, without: driver)
            case .releaseDriver(let driver):
                setFleetStatus(isOnlineInCity(driver) ? .available : .offline, for: driver)
            case .chargeRider(let amount):
                log.info("rider charged", metadata: ["trip": "\(id.rawValue)", "amount_minor": "\(amount.minorUnits)"])
            case .startDispatch:
                startDispatch(booking)
            case .endTrackingLinks:
                bus.finish(trip: id)  // links die by the trip's status (`TrackingLinks`); their streams end here
            case .endDispatch(let acceptedBy):
                endDispatch(id, acceptedBy: acceptedBy)
            case .followDriver(let driver):
                setFleetStatus(.busy, for: driver)
                if case .elsewhere = ownership(of: id) { break }  // the shard's owner follows it (`takeOver`)
                let following = Following(
                    booking: booking, driver: driver, alerts: ArrivalAlertTracker(configuration: configuration.alerts),
                    deadline: deadline(of: booking))
                state.withLock { $0.startFollowing(following) }
            case .stopFollowing:
                state.withLock { $0.stopFollowing(id) }
            case .announceArrival:
                let alerts = state.withLock { $0.following[id]?.alerts.driverArrived() } ?? [.arrived]
                for a in alerts { bus.publish(.alert(a), to: .trip(id)) }
            }
        }
    }

    /// Dispatch of `trip` is over: its machine withdraws the open offers (as taken by `acceptedBy`, or cancelled)
    /// and is forgotten.
    func endDispatch(_ trip: BookingID, acceptedBy driver: DriverID?) {
        guard state.withLock({ $0.dispatching[trip] != nil }) else { return }
        if let driver {
            runDispatch(trip) { $0.accepted(by: driver, at: $1) }
        } else {
            runDispatch(trip) { $0.cancelled(at: $1) }
        }
        state.withLock { s in
            s.dispatching[trip] = nil
            if let driver, s.offerHeld[driver] == trip { s.offerHeld[driver] = nil }
        }
        stopWatching(trip)
    }

    /// Dispatch again for a trip handed back by `driver`: remembered as a decline (also across a restart), so
    /// the trip is never offered to them again; the dispatch deadline counts from now.
    func restartDispatch(_ booking: Booking, without driver: DriverID) {
        do {
            try store.recordDecline(of: booking.id, by: driver, at: now())
        } catch {
            log.error(
                "re-dispatch decline not stored", metadata: ["trip": "\(booking.id.rawValue)", "error": "\(error)"])
        }
        resumeDispatch(booking, alsoDeclined: [driver])
    }
}
