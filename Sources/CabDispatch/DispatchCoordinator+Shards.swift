import CabCore
import Dispatch

/// Dispatch by shard ownership across nodes (issue 18, docs/dispatch-ownership.md): what a coordinator needs to
/// dispatch only the trips of the shards its node holds leases on, writing under their fences.
public struct ShardedDispatch: Sendable {
    /// This node's leases: which shards it may act on, under which fence (`CabCluster.LeaseKeeper`).
    public let ownership: any ShardOwnershipStatus
    /// Offers, deadlines and alert marks, written under fences; the deadline sweep; commands from any node.
    public let store: any FencedDispatchRepository
    /// How many due deadlines one sweep claims, and for how long (one not fired by then is due again).
    public var sweepLimit = 64
    /// As `sweepLimit`.
    public var claimMilliseconds: Int64 = 3_000
    /// Every this many ticks the owned shards are read for dispatching trips nobody dispatches (a hand-off
    /// lost while Redis was away, a dispatch dropped while the database was).
    public var rescanTicks = 10

    /// Dispatch over `ownership` and `store`.
    public init(ownership: any ShardOwnershipStatus, store: any FencedDispatchRepository) {
        self.ownership = ownership
        self.store = store
    }
}

/// When a shard's owner heard of a trip's status from the bus (the first offer's stages count from it).
struct HeardTrip {
    /// On the node's clock (the database's, on a cluster).
    let at: Instant
    /// Started when it was heard.
    let clock = StageClock()
}

/// Who acts on a trip.
enum TripOwnership {
    /// One node: this one dispatches what it books.
    case single
    /// This node owns the trip's shard, under this fence.
    case owned(ShardFence)
    /// Another node owns the trip's shard (or nobody does, for a moment).
    case elsewhere
}

extension DispatchCoordinator {
    /// From now on this node dispatches only the trips of the shards `sharded.ownership` holds (call before
    /// serving; the lease keeper's events then go to `startActing` and `stopActing`).
    public func dispatchByShard(_ sharded: ShardedDispatch) {
        sharding.withLock { $0 = sharded }
    }

    /// Who acts on `trip` now.
    func ownership(of trip: BookingID) -> TripOwnership {
        guard let sharded else { return .single }
        return sharded.ownership.fence(of: DispatchShard(of: trip)).map { .owned($0) } ?? .elsewhere
    }

    /// This node owns `fence.shard` from now: it hears its trips' statuses from every node, and takes over the
    /// trips the shard holds (dispatch resumed where the database says it was, trips with a driver followed).
    public func startActing(_ fence: ShardFence) {
        let receiver = ShardStatusReceiver(coordinator: self)
        let (fresh, first) = state.withLock { s -> (Bool, Bool) in
            let fresh = s.shardReceivers[fence.shard] == nil
            if fresh { s.shardReceivers[fence.shard] = receiver }
            let first = s.shardsToScan.isEmpty
            s.shardsToScan.insert(fence.shard)
            return (fresh, first)
        }
        if fresh { bus.subscribe(receiver, to: .shard(fence.shard)) }
        if first { shardQueue.async { [weak self] in self?.takeOverScannedShards() } }
    }

    /// This node must not act on `shard` any more: its trips are dropped from memory (their offers stay open in
    /// the database, where the next owner resumes them) and no longer followed here.
    public func stopActing(_ shard: DispatchShard) {
        let (receiver, trips) = state.withLock { s -> (ShardStatusReceiver?, [BookingID]) in
            s.shardsToScan.remove(shard)
            let trips = s.dispatching.keys.filter { DispatchShard(of: $0) == shard }
            for id in trips { s.dispatching[id] = nil }
            for (driver, trip) in s.offerHeld where DispatchShard(of: trip) == shard { s.offerHeld[driver] = nil }
            for id in s.following.keys where DispatchShard(of: id) == shard { s.stopFollowing(id) }
            return (s.shardReceivers.removeValue(forKey: shard), trips)
        }
        if let receiver { bus.unsubscribe(receiver, from: .shard(shard)) }
        for id in trips { stopWatching(id) }
    }

    /// Forgets this node's dispatch of `trip` without a word to anyone (its offers stay open in the database):
    /// the node lost the trip's shard, whose next owner resumes it.
    func dropDispatch(_ trip: BookingID) {
        let known = state.withLock { s -> Bool in
            guard s.dispatching.removeValue(forKey: trip) != nil else { return false }
            for (driver, held) in s.offerHeld where held == trip { s.offerHeld[driver] = nil }
            return true
        }
        if known { stopWatching(trip) }
    }

    /// Reads the open trips of the shards waiting in `shardsToScan` (one read for all) and takes them over.
    func takeOverScannedShards() {
        let shards = state.withLock { s -> Set<DispatchShard> in
            defer { s.shardsToScan = [] }
            return s.shardsToScan
        }
        guard !shards.isEmpty else { return }
        do {
            for read in try store.openTrips() where shards.contains(DispatchShard(of: read.id)) {
                // Read again alone: the list is a moment old, and a trip accepted since must not be dispatched.
                let booking = read.status == .dispatching ? try store.booking(read.id) : read
                if let booking { takeOver(booking) }
            }
        } catch {
            log.error("shard trips not read", metadata: ["shards": "\(shards.count)", "error": "\(error)"])
        }
    }

    /// Takes `booking` over as its shard's owner: a dispatching trip nobody here dispatches is resumed; a trip
    /// with a driver is followed and its deadline written.
    func takeOver(_ booking: Booking, heard: HeardTrip? = nil) {
        guard case .owned(let fence) = ownership(of: booking.id) else { return }
        let id = booking.id
        switch booking.status {
        case .dispatching:
            // Under the trip's gate: a transition on this node back to dispatching (a driver handing the trip
            // back) restarts dispatch inside it, and this must then find it registered, not start a second one.
            gates.withGate(id) {
                let known = state.withLock { $0.dispatching[id] != nil || $0.pendingStarts.contains(id) }
                if !known { resume(booking, under: fence, heard: heard) }
            }
        case .accepted, .arriving, .arrived, .inProgress:
            guard let driver = booking.driverID else { return }
            var alerts = ArrivalAlertTracker(configuration: configuration.alerts)
            if booking.status == .arrived || booking.status == .inProgress { _ = alerts.driverArrived() }
            let due = deadline(of: booking)
            // One lock: two statuses of the trip heard at once must not both start following it, nor the older
            // read overwrite the newer.
            state.withLock { s in
                if let followed = s.following[id] {
                    guard followed.booking.version <= booking.version else { return }
                    s.following[id]?.booking = booking
                    s.following[id]?.deadline = due
                } else {
                    s.startFollowing(Following(booking: booking, driver: driver, alerts: alerts, deadline: due))
                }
            }
            scheduleNextDeadline(of: booking, under: fence)
        default:
            if booking.status.isTerminal { state.withLock { $0.stopFollowing(id) } }
        }
    }

    /// A status of a trip of an owned shard, heard from any node (`ShardStatusReceiver`): the stored trip is
    /// read and taken over as it now stands.
    func heardOnShard(_ trip: BookingID, _ status: TripState) {
        guard case .owned = ownership(of: trip) else { return }
        if status.isTerminal {
            state.withLock { $0.stopFollowing(trip) }
            return
        }
        if status == .dispatching, state.withLock({ $0.dispatching[trip] != nil || $0.pendingStarts.contains(trip) }) {
            return
        }
        let heard = HeardTrip(at: now())
        do {
            if let booking = try store.booking(trip) { takeOver(booking, heard: heard) }
        } catch {
            log.error("trip not read for its shard", metadata: ["trip": "\(trip.rawValue)", "error": "\(error)"])
        }
    }

    /// `driver` declined `trip`'s offer on another node (stored there): as this shard's owner, the dispatch here
    /// moves on as if the decline had come to this node.
    func heardDecline(of trip: BookingID, by driver: DriverID) {
        let held = state.withLock { s -> Bool in
            guard s.dispatching[trip]?.machine.openOffers[driver] != nil else { return false }
            if s.offerHeld[driver] == trip { s.offerHeld[driver] = nil }
            return true
        }
        if held { runDispatch(trip) { $0.declined(by: driver, at: $1) } }
    }

    /// Resumes dispatch of `booking` from the offers the database holds: the last batch with its offers still
    /// open (their timer counted from what the database says is left, whatever this node's clock), nobody
    /// offered it before asked again, and the next batch at once when none is open. A trip its driver handed back
    /// (its last batch's offer `released`) starts a new dispatch instead, as a re-dispatch does.
    func resume(_ booking: Booking, under fence: ShardFence, heard: HeardTrip? = nil) {
        guard let sharded else { return }
        let id = booking.id
        let stored: [StoredOffer]
        var declined: Set<DriverID> = []
        do {
            stored = try sharded.store.offers(of: id)
            declined = try store.declines(of: id)
        } catch {
            log.error(
                "offers not read; dispatch not resumed", metadata: ["trip": "\(id.rawValue)", "error": "\(error)"])
            return
        }
        let t = now()
        let dispatch = configuration.dispatch
        var machine = DispatchMachine(configuration: dispatch, declined: declined)
        var actions: [DispatchAction]
        var base = 0
        let last = stored.map(\.batch).max()
        let released = stored.filter { $0.batch == last && $0.state == .released }.map(\.driver)
        if let last, !released.isEmpty {
            // A driver handed the trip back (on any node): a new dispatch from the nearest batch, as on the node
            // that owns it (`resumeDispatch`); the driver who handed it back is never asked again.
            machine = DispatchMachine(configuration: dispatch, declined: declined.union(released))
            base = last
            actions = machine.start(at: t)
        } else if let last {
            let open = stored.filter { $0.batch == last && $0.state == .open && $0.remainingMilliseconds > 0 }.map {
                DispatchOffer(
                    driver: $0.driver, etaSeconds: 0, expiresAt: t.adding(milliseconds: $0.remainingMilliseconds))
            }
            // The current dispatch began after the last hand-back (batches up to it were earlier rounds).
            let round = stored.filter { $0.state == .released }.map(\.batch).max() ?? 0
            let batch = min(last - 1 - round, dispatch.maximumBatches - 1)
            base = last - 1 - batch
            let offered = stored.filter { $0.batch > round }.map(\.driver)
            // The last batch ran out while nobody owned the shard (its owner killed or paused): closed now, when
            // this owner's dispatch moves on, not left open until a later batch, the give-up or another offer.
            if open.isEmpty, stored.contains(where: { $0.batch == last && $0.state == .open }) {
                closeLapsedBatch(last, of: id)
            }
            (machine, actions) = DispatchMachine.resumed(
                configuration: dispatch, batch: batch, offered: offered, declined: declined, open: open)
        } else {
            actions = machine.start(at: t)
        }
        var entry = TripDispatch(machine: machine, booking: booking, deadline: deadline(of: booking))
        entry.batchBase = base
        if let heard, stored.isEmpty {
            // A new booking heard from the node that took it: its first offer's stages from here.
            let sinceBooked = Double(heard.at.milliseconds(since: booking.createdAt)) / 1_000
            entry.trace = FirstOfferTrace(seconds: [.heard: sinceBooked, .reads: heard.clock.seconds])
        }
        let first = actions
        if beginDispatch(entry, of: booking, under: fence, first: { _, _ in first }) {
            log.info(
                "dispatch taken over",
                metadata: ["trip": "\(id.rawValue)", "batches": "\(stored.map(\.batch).max() ?? 0)"])
        }
    }

    /// Writes a batch's offers under `fence`: the drivers offered (one holding another open offer is left out);
    /// nil when the shard was lost (its dispatch here is dropped) or the database failed (nobody is offered).
    func writeOffers(_ offers: [DispatchOffer], of trip: BookingID, batch: Int, under fence: ShardFence)
        -> Set<DriverID>?
    {
        guard let sharded, !offers.isEmpty else { return [] }
        let open = Int64(configuration.dispatch.offerSeconds) * 1_000
        do {
            let batch = OfferBatch(booking: trip, batch: batch, drivers: offers.map(\.driver), openMilliseconds: open)
            return Set(try sharded.store.writeOffers(batch, under: fence))
        } catch let error as CoreError where error.code == .staleFence {
            lostShard(fence.shard, error)
            return nil
        } catch {
            log.error("offers not stored", metadata: ["trip": "\(trip.rawValue)", "error": "\(error)"])
            return []
        }
    }

    /// Batch `batch` (its stored number) of `trip` ran out unanswered on its shard's owner: its offers are closed
    /// as `expired` and the offer deadline removed under the fence now, when the timer fired. Left open, they
    /// stayed so in the database until the next batch was written, dispatch gave up, or another trip was offered
    /// to one of their drivers (up to the whole dispatch time when no new driver turned up). One node: nothing.
    func closeLapsedBatch(_ batch: Int, of trip: BookingID) {
        guard let sharded, case .owned(let fence) = ownership(of: trip) else { return }
        do {
            _ = try sharded.store.closeBatch(batch, of: trip, under: fence)
        } catch let error as CoreError where error.code == .staleFence {
            lostShard(fence.shard, error)
        } catch {
            log.error("lapsed offers not closed", metadata: ["trip": "\(trip.rawValue)", "error": "\(error)"])
        }
    }

    /// Giving up on `trip` as its shard's owner: its open offers withdrawn and deadlines removed under the
    /// fence (refused when the shard was lost: then the trip is the new owner's). One node: nothing to write.
    func giveUpUnderFence(_ trip: BookingID) throws {
        guard let sharded else { return }
        guard case .owned(let fence) = ownership(of: trip) else {
            throw CoreError.staleFence(ShardFence(shard: DispatchShard(of: trip), fence: 0), writing: "giving up")
        }
        do {
            try sharded.store.giveUp(trip, under: fence)
        } catch let error as CoreError where error.code == .staleFence {
            lostShard(fence.shard, error)
            throw error
        }
    }

    /// Writes `booking`'s next timed transition as a durable deadline (`dispatch_deadlines`), so that it fires
    /// from any node's sweep even if this one dies. Untimed states write nothing.
    func scheduleNextDeadline(of booking: Booking, under fence: ShardFence) {
        guard let sharded, let next = nextDeadline(of: booking) else { return }
        do {
            try sharded.store.scheduleDeadline(
                next.kind, of: booking.id, inMilliseconds: next.inMilliseconds, under: fence)
        } catch let error as CoreError where error.code == .staleFence {
            lostShard(fence.shard, error)
        } catch {
            log.error("deadline not stored", metadata: ["trip": "\(booking.id.rawValue)", "error": "\(error)"])
        }
    }

    /// `booking`'s next timed transition as a durable deadline, counted from this node's now; nil for an untimed
    /// state.
    func nextDeadline(of booking: Booking) -> NextDeadline? {
        let machine = TripStateMachine(booking: booking, tariff: tariff, table: configuration.table)
        guard let next = machine.nextDeadline, let kind = Self.deadlineKind(of: next.command) else { return nil }
        return NextDeadline(kind, inMilliseconds: max(1, next.at.milliseconds(since: now())))
    }

    /// The durable deadline of a timed transition.
    static func deadlineKind(of command: TripCommand) -> TripDeadlineKind? {
        switch command {
        case .noDriverFound: .dispatchTimeout
        case .redispatch: .pickupOverdue
        case .noShow: .noShowWait
        default: nil
        }
    }

    /// The database refused a write under a fence of `shard`: another node owns it now.
    func lostShard(_ shard: DispatchShard, _ error: CoreError) {
        log.warning("dispatch shard lost", metadata: ["shard": "\(shard.index)", "error": "\(error.message)"])
        stopActing(shard)
    }

    /// From `tick()`: on a cluster, starts a sweep of due deadlines on the shard queue (unless one still runs),
    /// and now and then a scan of the owned shards for dispatching trips nobody dispatches.
    func sweepIfSharded() {
        guard let sharded else { return }
        let rescan = state.withLock { s -> Bool? in
            guard !s.sweeping else { return nil }
            s.sweeping = true
            s.ticksSinceRescan += 1
            guard s.ticksSinceRescan >= sharded.rescanTicks else { return false }
            s.ticksSinceRescan = 0
            for shard in sharded.ownership.ownedShards { s.shardsToScan.insert(shard) }
            return true
        }
        guard let rescan else { return }
        shardQueue.async { [weak self] in
            guard let self else { return }
            defer { self.state.withLock { $0.sweeping = false } }
            self.sweepDeadlines(sharded)
            if rescan { self.takeOverScannedShards() }
        }
    }

    /// Claims the deadlines that are due (any node sweeps, owner or not) and fires each: a trip timeout is the
    /// booking's timed transition by compare-and-set when the trip is still in the state the deadline was
    /// written for (else the deadline is stale and only removed); an offer timeout is its shard owner's (which
    /// resumes the trip if it does not dispatch it), left to come due again on other nodes.
    func sweepDeadlines(_ sharded: ShardedDispatch) {
        let due: [DueDeadline]
        do {
            due = try sharded.store.claimDueDeadlines(
                for: sharded.ownership.node, limit: sharded.sweepLimit,
                retryAfterMilliseconds: sharded.claimMilliseconds, offerTimeoutsOf: sharded.ownership.ownedShards)
        } catch {
            log.error("deadline sweep failed", metadata: ["error": "\(error)"])
            return
        }
        for deadline in due {
            do {
                if try fire(deadline) { _ = try sharded.store.fireDeadline(deadline) }
            } catch {
                log.error(
                    "deadline not fired",
                    metadata: [
                        "trip": "\(deadline.booking.rawValue)", "kind": "\(deadline.kind.rawValue)",
                        "error": "\(error)",
                    ])
            }
        }
    }

    /// Performs a due deadline; false when it is not this node's to fire (an offer timeout of a shard it does
    /// not own).
    private func fire(_ deadline: DueDeadline) throws -> Bool {
        let id = deadline.booking
        if deadline.kind == .offerTimeout {
            guard case .owned(let fence) = ownership(of: id) else { return false }
            if state.withLock({ $0.dispatching[id] == nil }), let booking = try store.booking(id),
                booking.status == .dispatching
            {
                resume(booking, under: fence)
            }
            return true
        }
        guard let booking = try store.booking(id), !booking.status.isTerminal else { return true }
        let machine = TripStateMachine(booking: booking, tariff: tariff, table: configuration.table)
        guard let next = machine.nextDeadline, Self.deadlineKind(of: next.command) == deadline.kind else { return true }
        // The database says it is due: fire at the deadline the trip holds, even if this node's clock is behind.
        let at = max(now(), next.at)
        guard let command = machine.dueTimeout(at: at) else { return true }
        do {
            _ = try transition(command, id, by: .system, at: at)
        } catch let error as CoreError where error.code == .illegalTransition {
            return true  // the trip moved on meanwhile (its owner's own timer fired it first)
        }
        return true
    }
}

/// A dispatch shard's audience on its owner: every status of the shard's trips and every decline, from any
/// node, handed to the coordinator's hearing queue (never handled on the publisher's thread, which may be the bus's
/// reader).
final class ShardStatusReceiver: TripNotificationReceiver {
    // Weak: the bus holds the receiver, the coordinator owns the bus.
    private weak let coordinator: DispatchCoordinator?

    init(coordinator: DispatchCoordinator) { self.coordinator = coordinator }

    func receive(_ notification: TripNotification) {
        guard let coordinator else { return }
        switch notification {
        case .status(let trip, let status, _, _):
            coordinator.hearing.async(for: trip) { [weak coordinator] in coordinator?.heardOnShard(trip, status) }
        case .declined(let trip, let driver):
            coordinator.hearing.async(for: trip) { [weak coordinator] in coordinator?.heardDecline(of: trip, by: driver)
            }
        default:
            return
        }
    }

    func finish() {}
}
