import CabCore
import CabGeo
import CabTracking
import Dispatch
import Logging
import Synchronization

/// The ports the coordinator needs from a store (`CabStore.SQLiteStore` implements them all).
public typealias DispatchStore =
    AccountRepository & BookingRepository & DispatchStateRepository & LocationHistoryRepository & TrackingLinkRepository

/// The trip service: the one way to book a trip and to change one. Runs dispatch and the trip lifecycle: owns one
/// `DispatchMachine` per dispatching trip, performs their actions (search the live fleet, rank by road ETA, send
/// offers, keep timers), applies trip commands with the store's compare-and-set, tells both apps through the
/// notification bus (`TripNotificationBus`), and follows trips in progress for the rider's live ETA and alerts.
///
/// New bookings enter through `book(_:idempotencyKey:completion:)` only; every endpoint's and every timer's
/// change of a trip goes through `transition` (private), which performs the state machine's actions.
///
/// Time is injected: `now` is read for every decision and `tick()` fires what is due. `cab serve` calls `tick()`
/// from a repeating timer (`DispatchTicker`); tests call it after moving a manual clock, without sleeping.
/// Methods block on store writes: call them from request threads, not the cooperative pool.
public final class DispatchCoordinator: Sendable {
    /// Settings of dispatch and alerts.
    public struct Configuration: Sendable {
        /// Batches, timeouts, radii.
        public var dispatch: DispatchConfiguration
        /// Arrival alert tiers.
        public var alerts: ArrivalAlertConfiguration
        /// The trip transition table (and its timeouts).
        public var table: TripTransitionTable
        /// What `arrived` needs: a fix of the driver no older than this many seconds ...
        public var arrivalFixMaxAgeSeconds: Int
        /// ... within this many metres of the pickup (a dispatcher may override both).
        public var arrivalMaxDistanceMeters: Double

        /// Creates a configuration. The pickup-overdue margin is the table's (`TripTimeouts.pickupOverdueSeconds`).
        public init(
            dispatch: DispatchConfiguration = DispatchConfiguration(),
            alerts: ArrivalAlertConfiguration = ArrivalAlertConfiguration(), table: TripTransitionTable = .standard,
            arrivalFixMaxAgeSeconds: Int = 60,
            arrivalMaxDistanceMeters: Double = 150
        ) {
            precondition(arrivalFixMaxAgeSeconds > 0 && arrivalMaxDistanceMeters > 0, "arrival limits must be positive")
            self.dispatch = dispatch
            self.alerts = alerts
            self.table = table
            self.arrivalFixMaxAgeSeconds = arrivalFixMaxAgeSeconds
            self.arrivalMaxDistanceMeters = arrivalMaxDistanceMeters
        }
    }

    package struct TripDispatch {
        var machine: DispatchMachine
        var booking: Booking
        var timer: Instant?
        /// On a cluster: the batches written before this dispatch's machine started (a re-dispatch, a takeover):
        /// the machine's batch `b` is stored as batch `batchBase + b + 1`.
        var batchBase = 0
        /// When the booking's next timed transition is due (`TripStateMachine.nextDeadline`), kept with `booking`
        /// so that `tick()` finds what is due without building a state machine per trip.
        var deadline: Instant?
        /// The stages its first offer has passed on this node (a new booking's dispatch, until its first offers).
        var trace: FirstOfferTrace?

        /// Every entry is made with its deadline (`deadline(of:)`): one made without it never times out.
        init(machine: DispatchMachine, booking: Booking, deadline: Instant?) {
            self.machine = machine
            self.booking = booking
            self.deadline = deadline
        }
    }

    /// A trip whose driver is on the way or driving: followed for position, ETA and alerts.
    package struct Following {
        var booking: Booking
        var driver: DriverID
        var lastFixTime: Int64 = .min
        var position: TripPosition?
        /// Seconds by road to the pickup (before pickup) ...
        var etaSeconds: Int?
        /// ... or to the drop-off (during the ride).
        var dropoffETASeconds: Int?
        var alerts: ArrivalAlertTracker
        /// As `TripDispatch.deadline`.
        var deadline: Instant?

        /// As `TripDispatch.init`: the deadline is not optional to pass.
        init(booking: Booking, driver: DriverID, alerts: ArrivalAlertTracker, deadline: Instant?) {
            self.booking = booking
            self.driver = driver
            self.alerts = alerts
            self.deadline = deadline
        }
    }

    package struct State {
        package var dispatching: [BookingID: TripDispatch] = [:]
        /// The trip each driver holds an open offer for (a driver gets one offer at a time).
        var offerHeld: [DriverID: BookingID] = [:]
        var online: [DriverID: VehicleType] = [:]
        /// Change only through `startFollowing` and `stopFollowing`, which keep `tripOfDriver` in step.
        package var following: [BookingID: Following] = [:]
        /// The open trip each followed driver holds (dispatch offers nothing to them).
        var tripOfDriver: [DriverID: BookingID] = [:]
        /// Admitted trips (stored as `dispatching`) that changed before dispatch started on them (a rider's quick
        /// cancel): their queued start is dropped. Ids are removed when their start comes; kept small.
        var movedBeforeStart: Set<BookingID> = []
        /// On a cluster: the trips dispatched here, listened to for changes made on other nodes.
        var watchers: [BookingID: TripDispatchWatcher] = [:]
        /// Dispatch by shard ownership (issue 18): the shards this node acts on, each with its audience's receiver.
        var shardReceivers: [DispatchShard: ShardStatusReceiver] = [:]
        /// Bookings made here whose queued start has not run yet (the shard's receiver leaves them to it).
        var pendingStarts: Set<BookingID> = []
        /// Shards whose trips wait to be read and taken over (`startActing`), read together.
        var shardsToScan: Set<DispatchShard> = []
        /// True while a deadline sweep runs (the next tick skips).
        var sweeping = false
        /// Ticks since the last scan of the owned shards for trips nobody dispatches.
        var ticksSinceRescan = 0
        /// Followed trips whose driver moved since their follow-up last ran (`driversMoved`) ...
        var followsDue: Set<BookingID> = []
        /// ... and whether a run of them is queued on `followQueue`.
        var followRunQueued = false

        mutating func startFollowing(_ f: Following) {
            following[f.booking.id] = f
            tripOfDriver[f.driver] = f.booking.id
        }

        mutating func stopFollowing(_ id: BookingID) {
            guard let f = following.removeValue(forKey: id) else { return }
            if tripOfDriver[f.driver] == id { tripOfDriver[f.driver] = nil }
        }
    }

    /// A booking handed to dispatch, stored as `dispatching` with its first step.
    struct NewBooking: Sendable {
        let booking: Booking
        let step: TripStep
        /// Started when the booking became durable (its wait on the start queue).
        let durable = StageClock()
    }

    /// The configuration.
    public let configuration: Configuration
    let store: any DispatchStore
    /// The live positions dispatch searches (shared with location ingestion).
    public let fleet: LiveFleet<DriverID>
    let eta: any PickupETAEstimator
    /// When set, driver statuses go through it (so the fleet stream hears them) and trails are flushed first.
    let tracking: TrackingService?
    let tariff: Tariff
    let now: @Sendable () -> Instant
    /// Where the apps hear of trips: `CabAPI` subscribes SSE streams to it.
    public let bus: any TripNotificationBus
    /// The tracking links riders share (stored, so they survive a restart).
    public let links: TrackingLinks
    package let state = Mutex(State())
    /// New bookings waiting for dispatch to start, so that a `201` does not wait for the first search.
    let newBookings = NewBookingQueue<NewBooking>()
    /// Orders each trip's transitions with their notifications (`transition`, the rider's cancel).
    let gates = TripGates()
    /// Dispatch by shard ownership across nodes, once `dispatchByShard(_:)` set it (nil: this node dispatches
    /// what it books). Set once, before serving: read it through `sharded`.
    let sharding = Mutex<ShardedDispatch?>(nil)
    /// Dispatch by shard ownership, or nil on one node (`sharding`).
    var sharded: ShardedDispatch? { sharding.withLock { $0 } }
    /// Where shard work runs off the callers' threads, one at a time: takeovers of whole shards, deadline sweeps.
    let shardQueue = DispatchQueue(label: "swiftcab.dispatch.shards")
    /// Where a shard's owner handles what it hears of single trips (a trip booked on another node, a decline
    /// there), side by side on lanes (`DispatchLanes`): not queued behind a sweep or a rescan, nor behind other
    /// trips' reads (each reads the trip as stored, so their order does not matter; `takeOver` registers a
    /// dispatch once).
    let hearing = DispatchLanes(label: "swiftcab.dispatch.shard-hearing", count: 16)
    /// Told each batch timer as it is set (`DispatchTicker` arms a wake-up for it), so that a batch ends when its
    /// offers run out, not at the next tick; nil without a ticker (tests tick by hand).
    let timerWake = Mutex<(@Sendable (Instant) -> Void)?>(nil)
    /// Where queued new bookings start, side by side (`startQueued`) ...
    let startLanes = DispatchLanes(label: "swiftcab.dispatch.starts", count: 16)
    /// ... at most this many started or waiting for a lane at once ...
    static let maximumStarting = 64
    let startSlots = DispatchSemaphore(value: DispatchCoordinator.maximumStarting)
    /// ... and entered while one runs (`waitForQueuedBookings`).
    let starting = DispatchGroup()
    /// Where a followed trip's follow-up runs when its driver moves (`driversMoved`), off the ingesting thread.
    let followQueue = DispatchQueue(label: "swiftcab.dispatch.follow")
    /// Held by each trip's follow-up (from a tick or a move), so that two never send one trip's positions out of
    /// order or twice.
    let followGate = Mutex(())
    /// Where the coordinator logs (message, metadata).
    public let log: Logger
    /// A logger that writes nothing (tests, simulations): `cab serve` passes its own.
    public static let silentLogger = Logger(label: "cab.dispatch", factory: { _ in SwiftLogNoOpLogHandler() })

    /// A coordinator over `store` and `fleet`, ranking with `eta`, telling the apps on `bus`, reading time from `now`.
    public convenience init(
        store: any DispatchStore, fleet: LiveFleet<DriverID>, eta: any PickupETAEstimator, tariff: Tariff,
        configuration: Configuration = Configuration(), bus: any TripNotificationBus = InProcessTripBus(),
        now: @escaping @Sendable () -> Instant,
        log: Logger = DispatchCoordinator.silentLogger
    ) {
        self.init(
            store: store, fleet: fleet, tracking: nil, eta: eta, tariff: tariff, configuration: configuration, bus: bus,
            now: now, log: log)
    }

    /// A coordinator over `tracking`'s fleet: statuses are published on the fleet stream, trails flushed before a
    /// fare is computed.
    public convenience init(
        store: any DispatchStore, tracking: TrackingService, eta: any PickupETAEstimator, tariff: Tariff,
        configuration: Configuration = Configuration(), bus: any TripNotificationBus = InProcessTripBus(),
        now: @escaping @Sendable () -> Instant,
        log: Logger = DispatchCoordinator.silentLogger
    ) {
        self.init(
            store: store, fleet: tracking.fleet, tracking: tracking, eta: eta, tariff: tariff,
            configuration: configuration,
            bus: bus, now: now, log: log)
    }

    init(
        store: any DispatchStore, fleet: LiveFleet<DriverID>, tracking: TrackingService?, eta: any PickupETAEstimator,
        tariff: Tariff, configuration: Configuration, bus: any TripNotificationBus,
        now: @escaping @Sendable () -> Instant,
        log: Logger
    ) {
        self.store = store
        self.bus = bus
        links = TrackingLinks(repository: store, now: now)
        self.fleet = fleet
        self.tracking = tracking
        self.eta = eta
        self.tariff = tariff
        self.configuration = configuration
        self.now = now
        self.log = log
        // A rider sees the driver's new position when it arrives, not at the next tick (up to 500 ms later).
        tracking?.onDriversMoved { [weak self] in self?.driversMoved($0) }
    }

    // MARK: Drivers

    /// Puts `driver` online (offers may come) or offline (open offers are withdrawn and dispatch moves on).
    /// A driver holding an open trip (accepted to in progress) may not go offline: `trip_open` (409).
    public func setOnline(_ driver: DriverID, _ online: Bool) throws {
        guard let account = try store.driver(driver) else { throw CoreError(.notFound, "No driver \(driver).") }
        let open = try openTrip(of: driver)
        if !online, let open {
            throw CoreError(
                .tripOpen,
                "You still have trip \(open.id.shortForm) (\(open.status.situation)); complete it or cancel it "
                    + "before you go offline.")
        }
        let busy = open != nil
        let held: BookingID? = state.withLock { s in
            if online { s.online[driver] = account.vehicleType } else { s.online[driver] = nil }
            return online ? nil : s.offerHeld[driver]
        }
        fleet.setVehicleClass(VehicleClass(account.vehicleType), for: driver)
        setFleetStatus(online ? (busy ? .busy : .available) : .offline, for: driver)
        if let trip = held { runDispatch(trip) { $0.driverUnavailable(driver, at: $1) } }
    }

    /// True while `driver` is online.
    public func isOnline(_ driver: DriverID) -> Bool { state.withLock { $0.online[driver] != nil } }

    /// True while `driver` is online on this node or, on a cluster, on another one: the replicated fleet has
    /// them in a status other than offline (a trip ended on this node must not take offline a driver who went
    /// online on another).
    func isOnlineInCity(_ driver: DriverID) -> Bool {
        if isOnline(driver) { return true }
        guard bus.spansNodes, let status = fleet.status(of: driver) else { return false }
        return status != .offline
    }

    /// True while `trip` is offered to `driver` (such a driver may read the booking).
    public func isOffered(_ trip: BookingID, to driver: DriverID) -> Bool {
        openOffer(of: trip, to: driver, at: now()) != nil
    }

    /// The trip `driver` holds (accepted to in progress), if any, from the store.
    func openTrip(of driver: DriverID) throws -> Booking? {
        try store.bookings(BookingQuery(driverID: driver, statuses: Self.heldStates, limit: 1)).items.first
    }

    /// The states in which a trip holds its driver.
    static let heldStates: Set<TripState> = [.accepted, .arriving, .arrived, .inProgress]

    /// Refuses (`driver_busy`, 409) to give `driver` a trip while they hold another one.
    func requireFree(_ driver: DriverID, for trip: BookingID) throws {
        guard let open = try openTrip(of: driver), open.id != trip else { return }
        throw CoreError(
            .driverBusy,
            "This driver already has trip \(open.id.shortForm) (\(open.status.situation)); a driver takes one "
                + "trip at a time. Choose another driver, or finish that trip first.")
    }

    /// When `booking`'s next timed transition is due; nil in untimed states.
    func deadline(of booking: Booking) -> Instant? {
        TripStateMachine(booking: booking, tariff: tariff, table: configuration.table).nextDeadline?.at
    }

    /// Sets a driver's status in the live index (through tracking, so fleet streams hear it, when wired).
    func setFleetStatus(_ status: DriverStatus, for driver: DriverID) {
        if let tracking { tracking.setStatus(status, for: driver) } else { fleet.setStatus(status, for: driver) }
    }

    // MARK: Dispatch

    /// Books a trip: the one entry point for new bookings (the booking endpoint, tests and simulations alike).
    ///
    /// `booking` (new, in `requested`) is stored with dispatch's first step (`dispatch`, to `dispatching`) in the
    /// same transaction, so the answer says `dispatching` and the row is written once; a repeat with the same
    /// idempotency key answers with the first booking and writes nothing. `completion` gets the outcome once it
    /// is durable, on the store's thread (quick work only); offering has then been queued on the coordinator's
    /// own queue (`NewBookingQueue`: many new bookings start in one batch, and the answer does not wait for the
    /// first search).
    public func book(
        _ booking: Booking, idempotencyKey: IdempotencyKey?,
        completion: @escaping @Sendable (Result<BookingCreation, any Error>) -> Void
    ) {
        precondition(booking.status == .requested, "a new booking starts in requested")
        var machine = TripStateMachine(booking: booking, tariff: tariff, table: configuration.table)
        // `dispatch` is allowed from `requested` by the system in every table (TripTransitionTable).
        guard let step = try? machine.handle(.dispatch, by: .system, at: booking.createdAt), let record = step.record
        else {
            preconditionFailure("the transition table lets the system dispatch a requested trip")
        }
        let admitted = machine.booking
        let commit = StageClock()
        store.create(admitted, idempotencyKey: idempotencyKey, transitions: [record]) { [weak self] result in
            if let self, case .success(let creation) = result, creation.created {
                self.observe(.commit, commit.seconds)
                self.state.withLock { _ = $0.pendingStarts.insert(creation.booking.id) }
                self.queueStart(NewBooking(booking: creation.booking, step: step))
            }
            completion(result)
        }
    }

    /// `book(_:idempotencyKey:completion:)`, waiting for the outcome (simulations and benchmarks that book from
    /// their own threads).
    public func book(_ booking: Booking, idempotencyKey: IdempotencyKey?) throws -> BookingCreation {
        let outcome = Mutex<Result<BookingCreation, any Error>?>(nil)
        let done = DispatchSemaphore(value: 0)
        book(booking, idempotencyKey: idempotencyKey) { result in
            outcome.withLock { $0 = result }
            done.signal()
        }
        done.wait()
        // Set before the signal above.
        return try outcome.withLock { $0! }.get()
    }

    /// Trips stored in `requested` (left so by a stopped server): moves them all to `dispatching` in one store
    /// write, then starts offering each. One that changed meanwhile is judged again alone.
    func dispatchRequested(_ bookings: [Booking]) {
        let t = now()
        var started: [(booking: Booking, step: TripStep)] = []
        for booking in bookings {
            var machine = TripStateMachine(booking: booking, tariff: tariff, table: configuration.table)
            if booking.status == .requested, let step = try? machine.handle(.dispatch, by: .system, at: t),
                step.record != nil
            {
                started.append((machine.booking, step))
            }
        }
        var alone: [BookingID] = []
        do {
            // `step.record` is non-nil for every started booking (checked above).
            let written = try store.transitions(started.compactMap { s in s.step.record.map { (s.booking, $0) } })
            for (s, ok) in zip(started, written) {
                if ok { perform(s.step.actions, for: s.booking, actor: .system) } else { alone.append(s.booking.id) }
            }
        } catch {
            log.error("dispatch batch not stored", metadata: ["bookings": "\(started.count)", "error": "\(error)"])
            alone += started.map(\.booking.id)
        }
        for id in alone {
            do {
                _ = try transition(.dispatch, id, by: .system, at: now())
            } catch {
                log.error("dispatch not started", metadata: ["trip": "\(id.rawValue)", "error": "\(error)"])
            }
        }
    }

    /// Registers a trip stored as `dispatching` with a fresh dispatch machine (once). `unlessMoved` (a new
    /// booking's queued start): not if `after` saw the trip change before this start, such as a rider's quick
    /// cancel; checking and registering under one lock orders the two.
    func register(_ stored: Booking, unlessMoved: Bool, trace: FirstOfferTrace? = nil) -> Bool {
        let registered = state.withLock { s in
            if unlessMoved, s.movedBeforeStart.remove(stored.id) != nil { return false }
            if s.dispatching[stored.id] == nil {
                var entry = TripDispatch(
                    machine: DispatchMachine(configuration: configuration.dispatch), booking: stored,
                    deadline: deadline(of: stored))
                entry.trace = trace
                s.dispatching[stored.id] = entry
            }
            return true
        }
        if registered { watchForChangesElsewhere(stored.id) }
        return registered
    }

    /// The `startDispatch` action: registers the trip (unless its queued start did) and starts its machine.
    func startDispatch(_ stored: Booking) {
        let owner = ownership(of: stored.id)
        if case .elsewhere = owner { return }  // the shard's owner hears the status and dispatches
        _ = register(stored, unlessMoved: false)
        runDispatch(stored.id) { machine, time in machine.start(at: time) }
        if case .owned(let fence) = owner { scheduleNextDeadline(of: stored, under: fence) }
    }

    /// Applies one machine event for `trip` under the lock, then performs the actions it returns (searching
    /// outside the lock and feeding the candidates back in), until nothing is left to do.
    func runDispatch(_ trip: BookingID, _ event: (inout DispatchMachine, Instant) -> [DispatchAction]) {
        if case .elsewhere = ownership(of: trip) {
            dropDispatch(trip)  // not this node's to act on any more (its shard's lease ran out or moved)
            return
        }
        /// Applies one event to the trip's machine now, under the lock; its actions.
        func step(_ event: (inout DispatchMachine, Instant) -> [DispatchAction]) -> [DispatchAction] {
            let t = now()
            return state.withLock { s in
                guard var d = s.dispatching[trip] else { return [] }
                let actions = event(&d.machine, t)
                s.dispatching[trip] = d
                return actions
            }
        }
        var queue = step(event)
        while !queue.isEmpty {
            let action = queue.removeFirst()
            switch action {
            case .findCandidates(let radius, let excluding):
                guard let booking = state.withLock({ $0.dispatching[trip]?.booking }) else { return }
                let search = StageClock()
                let found = candidates(for: booking, radiusMeters: radius, excluding: excluding)
                let seconds = search.seconds
                state.withLock { $0.dispatching[trip]?.trace?.seconds[.search, default: 0] += seconds }
                queue += step { machine, t in machine.candidatesFound(found, at: t) }
            case .offer(let offers):
                // A driver another node is offering a trip right now is away for this batch.
                for driver in sendOffers(offers, trip: trip) {
                    queue += step { machine, t in machine.driverUnavailable(driver, at: t) }
                }
            case .withdraw(let drivers, let reason):
                // A batch that ran out (the machine has moved on to the next search): its stored number.
                let lapsed = state.withLock { s -> Int? in
                    for d in drivers where s.offerHeld[d] == trip { s.offerHeld[d] = nil }
                    guard reason == .expired, let d = s.dispatching[trip], let next = d.machine.batch else {
                        return nil
                    }
                    return d.batchBase + next
                }
                if let lapsed { closeLapsedBatch(lapsed, of: trip) }
                for d in drivers { bus.publish(.offerWithdrawn(trip, reason: reason.rawValue), to: .driver(d)) }
            case .scheduleTimer(let at):
                state.withLock { $0.dispatching[trip]?.timer = at }
                timerWake.withLock { $0 }?(at)
            case .giveUp:
                state.withLock { _ = $0.dispatching.removeValue(forKey: trip) }
                stopWatching(trip)
                do {
                    try giveUpUnderFence(trip)
                    // Not through `transition`: this runs inside dispatch, possibly under the trip's gate.
                    let (stored, step) = try store.apply(
                        .noDriverFound, to: trip, by: .system, at: now(), tariff: tariff, table: configuration.table)
                    perform(step.actions, for: stored, actor: .system)  // its streams end (`endTrackingLinks`)
                } catch {
                    log.error(
                        "no_driver_found not stored", metadata: ["trip": "\(trip.rawValue)", "error": "\(error)"])
                }
            }
        }
    }

    /// Sends the offers; returns the drivers not offered because another node of the cluster holds an open offer
    /// for them (`TripNotificationBus.claimOffer`).
    private func sendOffers(_ batch: [DispatchOffer], trip: BookingID) -> [DriverID] {
        // A driver this node offered another trip since the search (trips start side by side) is away for this
        // batch: claimed under the lock, so that no driver holds two of this node's offers at once.
        let found: (booking: Booking, first: Bool, batch: Int, heldElsewhere: [DriverID])? = state.withLock { s in
            guard let d = s.dispatching[trip] else { return nil }
            var heldElsewhere: [DriverID] = []
            for o in batch {
                if let held = s.offerHeld[o.driver], held != trip {
                    heldElsewhere.append(o.driver)
                } else {
                    s.offerHeld[o.driver] = trip
                }
            }
            let first = d.machine.offeredDrivers.count == batch.count
            return (d.booking, first, d.batchBase + (d.machine.batch ?? 0) + 1, heldElsewhere)
        }
        guard let found else { return [] }
        let offers = batch.filter { !found.heldElsewhere.contains($0.driver) }
        guard !offers.isEmpty else { return found.heldElsewhere }
        let booking = found.booking
        // On a cluster the offers are written under the shard's fence first; a driver the database found holding
        // another open offer is away for this batch, and a stale fence ends this node's dispatch of the shard.
        var durable: Set<DriverID>?
        switch ownership(of: trip) {
        case .single: break
        case .owned(let fence):
            let write = StageClock()
            guard let written = writeOffers(offers, of: trip, batch: found.batch, under: fence) else { return [] }
            durable = written
            let seconds = write.seconds
            state.withLock { s in s.dispatching[trip]?.trace?.seconds[.offersWrite] = seconds }
        case .elsewhere:
            dropDispatch(trip)  // the shard was lost (a pause outlived the lease): its new owner offers
            return []
        }
        if found.first {
            let trace = state.withLock { s -> FirstOfferTrace? in
                defer { s.dispatching[trip]?.trace = nil }
                return s.dispatching[trip]?.trace
            }
            firstOfferSent(trip, totalMilliseconds: now().milliseconds(since: booking.createdAt), trace: trace)
        }
        var taken = found.heldElsewhere
        for o in offers {
            let offer = TripOffer(
                tripID: trip, pickup: booking.pickup, dropoff: booking.dropoff, pickupName: booking.pickupName,
                dropoffName: booking.dropoffName, etaSeconds: o.etaSeconds, expiresAt: o.expiresAt)
            guard durable.map({ $0.contains(o.driver) }) ?? bus.claimOffer(offer, for: o.driver) else {
                state.withLock { s in if s.offerHeld[o.driver] == trip { s.offerHeld[o.driver] = nil } }
                taken.append(o.driver)
                continue
            }
            bus.publish(.offer(offer), to: .driver(o.driver))
        }
        return taken
    }

    /// Available, online, fresh drivers of the booking's vehicle type within `radiusMeters` of the pickup, not in
    /// `excluding` and holding no other offer, each with its road ETA (unreachable ones are left out).
    package func candidates(for booking: Booking, radiusMeters: Double, excluding: Set<DriverID>) -> [DispatchCandidate]
    {
        let t = now()
        let k = configuration.dispatch.candidatesPerSearch
        let filter = DriverFilter(
            statuses: [.available], vehicleClasses: booking.vehicleType.map { [VehicleClass($0)] },
            maxDistanceMeters: radiusMeters)
        let (online, held, busy) = state.withLock { ($0.online, $0.offerHeld, $0.tripOfDriver) }
        let near = fleet.nearest(
            to: booking.pickup, k: k + excluding.count + held.count, filter: filter, now: t.millisecondsSinceEpoch)
        // On a cluster a driver who went online on another node is a candidate too: the fleet (replicated
        // from every node) says they are available, and its filter holds them to the booking's vehicle class.
        let anyNode = bus.spansNodes
        let eligible = near.filter { n in
            guard !excluding.contains(n.driver), held[n.driver] == nil, busy[n.driver] == nil else { return false }
            guard let type = online[n.driver] else { return anyNode }
            return booking.vehicleType.map { $0 == type } ?? true
        }.prefix(k)
        let durations = eta.durationsMilliseconds(from: eligible.map(\.position.coordinate), to: booking.pickup)
        return zip(eligible, durations).compactMap { n, ms in
            ms.map {
                DispatchCandidate(driver: n.driver, etaSeconds: ($0 + 999) / 1000, distanceMeters: n.distanceMeters)
            }
        }
    }

    /// Trips being dispatched and trips followed with their driver, now (simulations check nothing is left).
    package var openTripCounts: (dispatching: Int, following: Int) {
        state.withLock { ($0.dispatching.count, $0.following.count) }
    }

    /// Called with a trip's booking-to-first-offer time in milliseconds when its first offers go out (`cab bench
    /// dispatch` keeps them, `cab serve` counts them in `/metrics`): `observeFirstOffers(_:)`.
    let firstOfferObserver = Mutex<Callback<Int64>?>(nil)
    /// Called with each stage of a first offer timed on this node: `observeFirstOfferStages(_:)`.
    let stageObserver = Mutex<Callback<(FirstOfferStage, Double)>?>(nil)

    /// Calls `observe` with each trip's booking-to-first-offer time in milliseconds, when its first offers go out.
    package func observeFirstOffers(_ observe: @escaping @Sendable (Int64) -> Void) {
        firstOfferObserver.withLock { $0 = Callback(observe) }
    }
}
