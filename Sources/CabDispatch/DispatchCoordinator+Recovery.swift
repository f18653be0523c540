import CabCore

/// What start-up recovery did with the trips the store held open.
public struct TripRecoveryReport: Hashable, Sendable {
    /// Trips left `requested` or `dispatching` that dispatch offers again.
    public var redispatched: Int = 0
    /// Trips whose deadline passed while the server was down, moved to `expired` or `no_driver_found`
    /// (or `cancelled_by_driver` for a no-show wait that ran out, or back to `dispatching` for an overdue pickup).
    public var timedOut: Int = 0
    /// Trips with a driver (`accepted` … `in_progress`) followed again for position, ETA and alerts.
    public var followed: Int = 0
    /// Trips that could not be recovered (each is logged).
    public var failed: Int = 0
}

extension DispatchCoordinator {
    /// Picks up the trips a stopped server left open: call once when `cab serve` starts, before it takes requests.
    ///
    /// A trip past its timeout (per the transition table, counted from when it entered its state, or from the
    /// promised pickup for an overdue one) gets the timed transition now (`expire`, `no_driver_found`, `no_show`,
    /// `redispatch`). Otherwise a `requested` trip is dispatched as if just booked, a `dispatching` one starts
    /// dispatch again from the first batch (its deadline still counts from the first start; drivers who declined
    /// it, or handed it back, are remembered in the store and not asked again, other offers made before the
    /// restart are forgotten), and a trip with a driver is followed again for the rider's position, ETA and
    /// alerts (an `arrived` trip does not repeat its arrival alert).
    @discardableResult
    public func recoverOpenTrips() throws -> TripRecoveryReport {
        var report = TripRecoveryReport()
        let t = now()
        var requested: [Booking] = []
        for booking in try store.openTrips() {
            let machine = TripStateMachine(booking: booking, tariff: tariff, table: configuration.table)
            if let command = machine.dueTimeout(at: t) {
                do {
                    _ = try transition(command, booking.id, by: .system, at: t)
                    report.timedOut += 1
                } catch {
                    report.failed += 1
                    log.error(
                        "recovery timeout not applied",
                        metadata: ["trip": "\(booking.id.rawValue)", "error": "\(error)"])
                }
                continue
            }
            if sharded != nil, booking.status != .requested {
                continue  // on a cluster the shards' owners take their trips over (`startActing`)
            }
            switch booking.status {
            case .requested:
                requested.append(booking)  // moved to dispatching in one write below
                report.redispatched += 1
            case .dispatching:
                resumeDispatch(booking)
                report.redispatched += 1
            case .accepted, .arriving, .arrived, .inProgress:
                guard let driver = booking.driverID else {
                    report.failed += 1
                    log.warning(
                        "recovery found a trip without its driver", metadata: ["trip": "\(booking.id.rawValue)"])
                    continue
                }
                var alerts = ArrivalAlertTracker(configuration: configuration.alerts)
                if booking.status == .arrived || booking.status == .inProgress { _ = alerts.driverArrived() }
                let following = Following(
                    booking: booking, driver: driver, alerts: alerts, deadline: deadline(of: booking))
                state.withLock { $0.startFollowing(following) }
                report.followed += 1
            default:
                continue  // terminal: openTrips() does not return these
            }
        }
        if !requested.isEmpty { dispatchRequested(requested) }
        log.info(
            "open trips recovered",
            metadata: [
                "redispatched": "\(report.redispatched)", "timed_out": "\(report.timedOut)",
                "followed": "\(report.followed)", "failed": "\(report.failed)",
            ])
        return report
    }

    /// Starts dispatch again for a trip the store holds in `dispatching` (no transition: it is already there),
    /// never offering it to a driver who declined it before (stored), nor to `alsoDeclined`.
    func resumeDispatch(_ booking: Booking, alsoDeclined: Set<DriverID> = []) {
        let owner = ownership(of: booking.id)
        if case .elsewhere = owner { return }  // the shard's owner hears the status and dispatches
        var batchBase = 0
        if case .owned = owner, let sharded {
            // Batches go on being numbered after those stored (a re-dispatch starts again from the nearest).
            batchBase = ((try? sharded.store.offers(of: booking.id)) ?? []).map(\.batch).max() ?? 0
        }
        var declined = alsoDeclined
        do {
            declined.formUnion(try store.declines(of: booking.id))
        } catch {
            log.warning(
                "declines not read; dispatch may ask those drivers again",
                metadata: ["trip": "\(booking.id.rawValue)", "error": "\(error)"])
        }
        var dispatch = TripDispatch(
            machine: DispatchMachine(configuration: configuration.dispatch, declined: declined), booking: booking,
            deadline: deadline(of: booking))
        dispatch.batchBase = batchBase
        var fence: ShardFence?
        if case .owned(let owned) = owner { fence = owned }
        beginDispatch(dispatch, of: booking, under: fence) { machine, time in machine.start(at: time) }
    }

    /// Registers `dispatch` as this node's dispatch of `booking`, once: a takeover and a re-dispatch (or a
    /// restart) racing to start it register one, and the loser does nothing (false). Then the trip's changes on
    /// other nodes are watched, `first` runs the machine, and as the shard's owner (`fence`) the trip's next
    /// deadline is written.
    @discardableResult
    func beginDispatch(
        _ dispatch: TripDispatch, of booking: Booking, under fence: ShardFence?,
        first: (inout DispatchMachine, Instant) -> [DispatchAction]
    ) -> Bool {
        let id = booking.id
        let fresh = state.withLock { s -> Bool in
            guard s.dispatching[id] == nil else { return false }
            s.dispatching[id] = dispatch
            for driver in dispatch.machine.openOffers.keys { s.offerHeld[driver] = id }
            return true
        }
        guard fresh else { return false }
        watchForChangesElsewhere(id)
        runDispatch(id, first)
        if let fence { scheduleNextDeadline(of: booking, under: fence) }
        return true
    }
}
