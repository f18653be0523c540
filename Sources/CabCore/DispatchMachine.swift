/// Dispatch for one trip as a sans-I/O state machine: events in (candidates found, declines, a driver going
/// offline, the timer, an accept, a cancel), `DispatchAction`s out. The owner (`DispatchCoordinator` in CabAPI)
/// searches the live index, ranks by road ETA, sends offers, runs the timer and stores the trip transitions.
///
/// Policy:
/// - batch `i` searches `configuration.radiusMeters(ofBatch: i)` and offers the trip to the `batchSize` best
///   candidates by road ETA (ties: straight-line distance, then id) who were never offered it before;
/// - a batch ends when every driver in it declined or went away, or when its offers expire; then the next
///   batch starts; a batch that finds nobody new moves straight on to the next (at the widest radius it waits
///   one offer period first, so drivers coming online or finishing a trip can still be found);
/// - each driver is offered a trip at most once (so one who declined never sees it again);
/// - after `maximumBatches` batches the owner is told to `giveUp` (`no_driver_found`).
///
/// Lives in CabCore (the domain's dispatch policy; no I/O, no clock: times are passed in).
public struct DispatchMachine: Sendable {
    /// Where dispatch of the trip is.
    public enum Phase: Hashable, Sendable {
        /// Not started.
        case idle
        /// Waiting for the candidates of batch `batch`.
        case searching(batch: Int)
        /// Offers of batch `batch` are open until `expiresAt`.
        case offering(batch: Int, expiresAt: Instant)
        /// A driver accepted or was assigned.
        case assigned(DriverID)
        /// Every batch ran out.
        case gaveUp
        /// The trip was cancelled (or ended otherwise) while dispatching.
        case cancelled
    }

    /// The configuration.
    public let configuration: DispatchConfiguration
    /// Where dispatch is.
    public private(set) var phase: Phase = .idle
    /// Every driver offered the trip so far, in order.
    public private(set) var offeredDrivers: [DriverID] = []
    /// The drivers who declined.
    public private(set) var declinedDrivers: Set<DriverID> = []
    /// The open offers of the current batch.
    public private(set) var openOffers: [DriverID: DispatchOffer] = [:]

    /// A machine in `.idle`. `declined` are drivers who declined this trip before (dispatch resumed after a
    /// restart): they are never offered it again.
    public init(configuration: DispatchConfiguration = DispatchConfiguration(), declined: Set<DriverID> = []) {
        self.configuration = configuration
        declinedDrivers = declined
        offeredDrivers = declined.sorted { $0.rawValue < $1.rawValue }
    }

    /// Dispatch taken over by a new owner of the trip's shard (issue 18), from what the database holds: batch
    /// `batch` (0-based) was the last one written, `open` its offers still open (their expiry on this node's
    /// clock), `offered` every driver offered the trip before (never asked again) and `declined` those who said
    /// no. With open offers it waits for them (the actions: the timer at their expiry); with none it goes on to
    /// the next batch (or gives up after the last), as the old owner would have.
    public static func resumed(
        configuration: DispatchConfiguration, batch: Int, offered: [DriverID], declined: Set<DriverID>,
        open: [DispatchOffer]
    ) -> (machine: DispatchMachine, actions: [DispatchAction]) {
        precondition(batch >= 0, "batches are numbered from 0")
        var machine = DispatchMachine(configuration: configuration, declined: declined)
        var known = Set(machine.offeredDrivers)
        for driver in offered + open.map(\.driver) where known.insert(driver).inserted {
            machine.offeredDrivers.append(driver)
        }
        guard let expiresAt = open.map(\.expiresAt).max() else {
            return (machine, machine.next(after: batch))
        }
        for offer in open { machine.openOffers[offer.driver] = offer }
        machine.phase = .offering(batch: batch, expiresAt: expiresAt)
        return (machine, [.scheduleTimer(expiresAt)])
    }

    /// The batch being searched or offered (0-based); nil before the start and after the end.
    public var batch: Int? {
        switch phase {
        case .searching(let batch), .offering(let batch, _): batch
        default: nil
        }
    }

    /// True once dispatch has ended (assigned, gave up or cancelled).
    public var isFinished: Bool {
        switch phase {
        case .assigned, .gaveUp, .cancelled: true
        default: false
        }
    }

    /// True when `driver` holds an offer that is still open at `time`.
    public func isOffered(to driver: DriverID, at time: Instant) -> Bool {
        guard let offer = openOffers[driver] else { return false }
        return time < offer.expiresAt
    }

    /// Starts the first batch.
    public mutating func start(at time: Instant) -> [DispatchAction] {
        guard phase == .idle else { return [] }
        return search(batch: 0)
    }

    /// The ranked (or unranked) candidates of the current search; offers the best new ones.
    public mutating func candidatesFound(_ candidates: [DispatchCandidate], at time: Instant) -> [DispatchAction] {
        guard case .searching(let batch) = phase else { return [] }
        let already = Set(offeredDrivers)
        var seen: Set<DriverID> = []
        let fresh = candidates.filter { !already.contains($0.driver) && seen.insert($0.driver).inserted }
        let chosen = fresh.sorted(by: Self.ranksBefore).prefix(configuration.batchSize)
        let expiresAt = time.adding(seconds: configuration.offerSeconds)
        guard !chosen.isEmpty else {
            // Nobody new: widen at once while the radius can grow; at the widest radius, wait one offer period
            // (drivers come online or finish trips) before the next batch looks again.
            // non-empty by init
            let widest = configuration.radiusMeters(ofBatch: batch) >= configuration.searchRadiiMeters.last!
            guard widest, batch + 1 < configuration.maximumBatches else { return next(after: batch) }
            phase = .offering(batch: batch, expiresAt: expiresAt)
            return [.scheduleTimer(expiresAt)]
        }
        let offers = chosen.map { DispatchOffer(driver: $0.driver, etaSeconds: $0.etaSeconds, expiresAt: expiresAt) }
        for offer in offers {
            openOffers[offer.driver] = offer
            offeredDrivers.append(offer.driver)
        }
        phase = .offering(batch: batch, expiresAt: expiresAt)
        return [.offer(offers), .scheduleTimer(expiresAt)]
    }

    /// `driver` declined: never offered this trip again; the next batch starts when nobody in this one is left.
    public mutating func declined(by driver: DriverID, at time: Instant) -> [DispatchAction] {
        guard openOffers[driver] != nil else { return [] }
        declinedDrivers.insert(driver)
        return dropOffer(of: driver)
    }

    /// `driver` went offline (or busy elsewhere, or stale) while holding an offer: treated like a decline.
    public mutating func driverUnavailable(_ driver: DriverID, at time: Instant) -> [DispatchAction] {
        guard openOffers[driver] != nil else { return [] }
        return dropOffer(of: driver)
    }

    /// The timer: when the batch's time is up, its open offers are withdrawn and the next batch starts.
    public mutating func timerFired(at time: Instant) -> [DispatchAction] {
        guard case .offering(let batch, let expiresAt) = phase, time >= expiresAt else { return [] }
        let lapsed = openOffers.keys.sorted()
        openOffers = [:]
        var actions: [DispatchAction] = lapsed.isEmpty ? [] : [.withdraw(lapsed, .expired)]
        actions += next(after: batch)
        return actions
    }

    /// `driver` accepted (the store already recorded it): every other open offer is withdrawn.
    public mutating func accepted(by driver: DriverID, at time: Instant) -> [DispatchAction] {
        finish(.assigned(driver), withdrawing: .taken, except: driver)
    }

    /// A dispatcher assigned `driver` by hand.
    public mutating func assigned(_ driver: DriverID, at time: Instant) -> [DispatchAction] {
        finish(.assigned(driver), withdrawing: .taken, except: driver)
    }

    /// The trip was cancelled or otherwise ended: every open offer is withdrawn.
    public mutating func cancelled(at time: Instant) -> [DispatchAction] {
        finish(.cancelled, withdrawing: .cancelled, except: nil)
    }

    /// Ranking: road ETA, then straight-line distance, then id (deterministic).
    public static func ranksBefore(_ a: DispatchCandidate, _ b: DispatchCandidate) -> Bool {
        (a.etaSeconds, a.distanceMeters, a.driver.rawValue) < (b.etaSeconds, b.distanceMeters, b.driver.rawValue)
    }

    private mutating func dropOffer(of driver: DriverID) -> [DispatchAction] {
        openOffers[driver] = nil
        guard openOffers.isEmpty, case .offering(let batch, _) = phase else { return [] }
        return next(after: batch)
    }

    private mutating func next(after batch: Int) -> [DispatchAction] {
        guard batch + 1 < configuration.maximumBatches else {
            phase = .gaveUp
            return [.giveUp]
        }
        return search(batch: batch + 1)
    }

    private mutating func search(batch: Int) -> [DispatchAction] {
        phase = .searching(batch: batch)
        return [
            .findCandidates(radiusMeters: configuration.radiusMeters(ofBatch: batch), excluding: Set(offeredDrivers))
        ]
    }

    private mutating func finish(_ end: Phase, withdrawing reason: OfferWithdrawal, except keep: DriverID?)
        -> [DispatchAction]
    {
        guard !isFinished else { return [] }
        phase = end
        let others = openOffers.keys.filter { $0 != keep }.sorted()
        openOffers = [:]
        return others.isEmpty ? [] : [.withdraw(others, reason)]
    }
}
