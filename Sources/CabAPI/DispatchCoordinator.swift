import CabCore
import CabGeo
import CabStore
import CabTracking
import Synchronization

/// Runs dispatch and the trip lifecycle for the API: owns one `DispatchMachine` per dispatching trip, performs
/// their actions (search the live fleet, rank by road ETA, send offers, keep timers), applies trip commands with
/// the store's compare-and-set, tells both apps through `TripNotifier`, and follows trips in progress for the
/// rider's live ETA and arrival alerts.
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
        /// True: `bookingHooks.bookingCreated` queues the booking and returns; dispatch starts on the coordinator's
        /// own queue, for many new bookings in one store write (`cab serve`). False: it starts in the caller.
        public var startsDispatchInBackground: Bool
        /// What `arrived` needs: a fix of the driver no older than this many seconds ...
        public var arrivalFixMaxAgeSeconds: Int
        /// ... within this many metres of the pickup (a dispatcher may override both).
        public var arrivalMaxDistanceMeters: Double

        /// Creates a configuration. The pickup-overdue margin is the table's (`TripTimeouts.pickupOverdueSeconds`).
        public init(
            dispatch: DispatchConfiguration = DispatchConfiguration(),
            alerts: ArrivalAlertConfiguration = ArrivalAlertConfiguration(), table: TripTransitionTable = .standard,
            startsDispatchInBackground: Bool = false, arrivalFixMaxAgeSeconds: Int = 60,
            arrivalMaxDistanceMeters: Double = 150
        ) {
            precondition(arrivalFixMaxAgeSeconds > 0 && arrivalMaxDistanceMeters > 0, "arrival limits must be positive")
            self.dispatch = dispatch
            self.alerts = alerts
            self.table = table
            self.startsDispatchInBackground = startsDispatchInBackground
            self.arrivalFixMaxAgeSeconds = arrivalFixMaxAgeSeconds
            self.arrivalMaxDistanceMeters = arrivalMaxDistanceMeters
        }
    }

    package struct TripDispatch {
        var machine: DispatchMachine
        var booking: Booking
        var timer: Instant?
        /// When the booking's next timed transition is due (`TripStateMachine.nextDeadline`), kept with `booking`
        /// so that `tick()` finds what is due without building a state machine per trip.
        var deadline: Instant?

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
        var position: TripEvents.Position?
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

        mutating func startFollowing(_ f: Following) {
            following[f.booking.id] = f
            tripOfDriver[f.driver] = f.booking.id
        }

        mutating func stopFollowing(_ id: BookingID) {
            guard let f = following.removeValue(forKey: id) else { return }
            if tripOfDriver[f.driver] == id { tripOfDriver[f.driver] = nil }
        }
    }

    /// A booking handed to dispatch: stored in `requested`, or already `dispatching` with its admission's step.
    struct NewBooking: Sendable {
        let booking: Booking
        let admitted: TripStep?
    }

    /// The configuration.
    public let configuration: Configuration
    let store: SQLiteStore
    /// The live positions dispatch searches (shared with location ingestion).
    public let fleet: LiveFleet<DriverID>
    let eta: any PickupETAEstimator
    /// When set, driver statuses go through it (so the fleet stream hears them) and trails are flushed first.
    let tracking: TrackingService?
    let tariff: Tariff
    let now: @Sendable () -> Instant
    let notifier = TripNotifier()
    let links = TrackingLinks()
    package let state = Mutex(State())
    /// New bookings waiting for dispatch (`Configuration.startsDispatchInBackground`).
    let newBookings = NewBookingQueue<NewBooking>()
    /// Orders each trip's transitions with their notifications (`transition`, the rider's cancel).
    let gates = TripGates()
    let log: @Sendable (String, [String: String]) -> Void

    /// A coordinator over `store` and `fleet`, ranking with `eta`, reading time from `now`.
    public convenience init(
        store: SQLiteStore, fleet: LiveFleet<DriverID>, eta: any PickupETAEstimator, tariff: Tariff,
        configuration: Configuration = Configuration(), now: @escaping @Sendable () -> Instant,
        log: @escaping @Sendable (String, [String: String]) -> Void = { _, _ in }
    ) {
        self.init(store: store, fleet: fleet, tracking: nil, eta: eta, tariff: tariff, configuration: configuration, now: now, log: log)
    }

    /// A coordinator over `tracking`'s fleet: statuses are published on the fleet stream, trails flushed before a
    /// fare is computed.
    public convenience init(
        store: SQLiteStore, tracking: TrackingService, eta: any PickupETAEstimator, tariff: Tariff,
        configuration: Configuration = Configuration(), now: @escaping @Sendable () -> Instant,
        log: @escaping @Sendable (String, [String: String]) -> Void = { _, _ in }
    ) {
        self.init(
            store: store, fleet: tracking.fleet, tracking: tracking, eta: eta, tariff: tariff, configuration: configuration,
            now: now, log: log)
    }

    init(
        store: SQLiteStore, fleet: LiveFleet<DriverID>, tracking: TrackingService?, eta: any PickupETAEstimator,
        tariff: Tariff, configuration: Configuration, now: @escaping @Sendable () -> Instant,
        log: @escaping @Sendable (String, [String: String]) -> Void
    ) {
        self.store = store
        self.fleet = fleet
        self.tracking = tracking
        self.eta = eta
        self.tariff = tariff
        self.configuration = configuration
        self.now = now
        self.log = log
    }

    // MARK: Drivers

    /// Puts `driver` online (offers may come) or offline (open offers are withdrawn and dispatch moves on).
    /// A driver holding an open trip (accepted to in progress) may not go offline: `trip_open` (409).
    public func setOnline(_ driver: DriverID, _ online: Bool) throws {
        guard let account = try store.driver(driver) else { throw CoreError(.notFound, "No driver \(driver).") }
        let open = try openTrip(of: driver)
        if !online, let open {
            throw APIError(
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

    /// True while `trip` is offered to `driver` (such a driver may read the booking).
    public func isOffered(_ trip: BookingID, to driver: DriverID) -> Bool {
        let t = now()
        return state.withLock { $0.dispatching[trip]?.machine.isOffered(to: driver, at: t) ?? false }
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
        throw APIError(
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

    /// A new booking from the booking endpoints, stored in `requested` (or admitted: stored as `dispatching`
    /// with `admitted`'s step): queued for the coordinator's own queue when configured to start dispatch in the
    /// background (and the queue has room), else started in the caller.
    func bookingSubmitted(_ booking: Booking, admitted: TripStep? = nil) {
        let item = NewBooking(booking: booking, admitted: admitted)
        if configuration.startsDispatchInBackground,
            newBookings.submit(item, process: { [weak self] in self?.startQueued($0) })
        {
            return
        }
        startQueued([item])
    }

    /// What a new booking becomes as it is stored: `dispatching`, with the `dispatch` step's history row written
    /// in the booking's own transaction (`BookingHooks.admit`).
    func admit(_ booking: Booking) -> BookingAdmission {
        var machine = TripStateMachine(booking: booking, tariff: tariff, table: configuration.table)
        guard booking.status == .requested, let step = try? machine.handle(.dispatch, by: .system, at: booking.createdAt),
            step.record != nil
        else { return BookingAdmission(booking: booking) }
        return BookingAdmission(booking: machine.booking, step: step)
    }

    /// Starts dispatch on queued bookings: admitted ones at once (they are stored as `dispatching`), the rest
    /// moved to `dispatching` in one store write first.
    private func startQueued(_ items: [NewBooking]) {
        var requested: [Booking] = []
        for item in items {
            if let step = item.admitted { startOffering(item.booking, step, unlessMoved: true) } else { requested.append(item.booking) }
        }
        if !requested.isEmpty { bookingsCreated(requested) }
    }

    /// Blocks until every booking queued by `bookingHooks.bookingCreated` has started dispatch (tests, shutdown).
    public func waitForQueuedBookings() { newBookings.waitUntilIdle() }

    /// New bookings, many at once: moves them all to `dispatching` in one store write, then starts offering each.
    /// A booking that changed meanwhile (a rider's quick cancel) is judged again alone by `bookingCreated`.
    public func bookingsCreated(_ bookings: [Booking]) {
        let t = now()
        var started: [(booking: Booking, step: TripStep)] = []
        var alone: [Booking] = []
        for booking in bookings {
            var machine = TripStateMachine(booking: booking, tariff: tariff, table: configuration.table)
            if booking.status == .requested, let step = try? machine.handle(.dispatch, by: .system, at: t),
                step.record != nil
            {
                started.append((machine.booking, step))
            } else {
                alone.append(booking)
            }
        }
        do {
            // `step.record` is non-nil for every started booking (checked above).
            let written = try store.transitions(started.compactMap { s in s.step.record.map { (s.booking, $0) } })
            for (s, ok) in zip(started, written) {
                if ok { startOffering(s.booking, s.step) } else { alone.append(s.booking) }
            }
        } catch {
            log("dispatch batch not stored", ["bookings": "\(started.count)", "error": "\(error)"])
            alone += started.map(\.booking)
        }
        for booking in alone { bookingCreated(booking) }
    }

    /// A new booking: moves it to `dispatching` and starts offering it.
    public func bookingCreated(_ booking: Booking) {
        let t = now()
        do {
            let (stored, step) = try store.apply(
                .dispatch, to: booking.id, by: .system, at: t, tariff: tariff, table: configuration.table)
            startOffering(stored, step)
        } catch {
            log("dispatch not started", ["trip": booking.id.rawValue, "error": "\(error)"])
        }
    }

    /// A booking now stored as `dispatching`: registers it, performs the transition's actions and starts its
    /// machine. `unlessMoved` (an admitted trip started from the queue): not if `after` saw the trip change
    /// before this start, such as a rider's quick cancel; checking and registering under one lock orders the two.
    private func startOffering(_ stored: Booking, _ step: TripStep, unlessMoved: Bool = false) {
        let registered = state.withLock { s in
            if unlessMoved, s.movedBeforeStart.remove(stored.id) != nil { return false }
            s.dispatching[stored.id] = TripDispatch(
                machine: DispatchMachine(configuration: configuration.dispatch), booking: stored,
                deadline: deadline(of: stored))
            return true
        }
        guard registered else { return }
        perform(step.actions, for: stored, actor: .system)
        runDispatch(stored.id) { machine, time in machine.start(at: time) }
    }

    /// Applies one machine event for `trip` under the lock, then performs the actions it returns (searching
    /// outside the lock and feeding the candidates back in), until nothing is left to do.
    func runDispatch(_ trip: BookingID, _ event: (inout DispatchMachine, Instant) -> [DispatchAction]) {
        var t = now()
        var queue: [DispatchAction] = state.withLock { s in
            guard var d = s.dispatching[trip] else { return [] }
            let actions = event(&d.machine, t)
            s.dispatching[trip] = d
            return actions
        }
        while !queue.isEmpty {
            let action = queue.removeFirst()
            switch action {
            case .findCandidates(let radius, let excluding):
                guard let booking = state.withLock({ $0.dispatching[trip]?.booking }) else { return }
                let found = candidates(for: booking, radiusMeters: radius, excluding: excluding)
                t = now()
                queue += state.withLock { s in
                    guard var d = s.dispatching[trip] else { return [] }
                    let actions = d.machine.candidatesFound(found, at: t)
                    s.dispatching[trip] = d
                    return actions
                }
            case .offer(let offers):
                sendOffers(offers, trip: trip)
            case .withdraw(let drivers, let reason):
                state.withLock { s in for d in drivers where s.offerHeld[d] == trip { s.offerHeld[d] = nil } }
                for d in drivers {
                    notifier.send(
                        "cancelled", TripEvents.Cancelled(tripID: trip, by: "system", status: nil, reason: reason.rawValue),
                        toDriver: d)
                }
            case .scheduleTimer(let at):
                state.withLock { $0.dispatching[trip]?.timer = at }
            case .giveUp:
                state.withLock { _ = $0.dispatching.removeValue(forKey: trip) }
                do {
                    let (stored, step) = try store.apply(
                        .noDriverFound, to: trip, by: .system, at: now(), tariff: tariff, table: configuration.table)
                    perform(step.actions, for: stored, actor: .system)
                    notifier.finish(booking: trip)  // the rider's streams end after the terminal status
                } catch {
                    log("no_driver_found not stored", ["trip": trip.rawValue, "error": "\(error)"])
                }
            }
        }
    }

    private func sendOffers(_ offers: [DispatchOffer], trip: BookingID) {
        let found: (booking: Booking, first: Bool)? = state.withLock { s in
            guard let d = s.dispatching[trip] else { return nil }
            for o in offers { s.offerHeld[o.driver] = trip }
            return (d.booking, d.machine.offeredDrivers.count == offers.count)
        }
        guard let found else { return }
        let booking = found.booking
        if found.first, let observe = firstOfferObserver.withLock({ $0 }) {
            observe(now().milliseconds(since: booking.createdAt))
        }
        for o in offers {
            notifier.send(
                "offer",
                TripEvents.Offer(
                    tripID: trip, pickup: booking.pickup, dropoff: booking.dropoff, pickupName: booking.pickupName,
                    dropoffName: booking.dropoffName, etaSeconds: o.etaSeconds, expiresAt: o.expiresAt),
                toDriver: o.driver)
        }
    }

    /// Available, online, fresh drivers of the booking's vehicle type within `radiusMeters` of the pickup, not in
    /// `excluding` and holding no other offer, each with its road ETA (unreachable ones are left out).
    package func candidates(
        for booking: Booking, radiusMeters: Double, excluding: Set<DriverID>
    ) -> [DispatchCandidate] {
        let t = now()
        let k = configuration.dispatch.candidatesPerSearch
        let filter = DriverFilter(
            statuses: [.available], vehicleClasses: booking.vehicleType.map { [VehicleClass($0)] },
            maxDistanceMeters: radiusMeters)
        let (online, held, busy) = state.withLock { ($0.online, $0.offerHeld, $0.tripOfDriver) }
        let near = fleet.nearest(to: booking.pickup, k: k + excluding.count + held.count, filter: filter, now: t.millisecondsSinceEpoch)
        let eligible = near.filter { n in
            guard let type = online[n.driver], !excluding.contains(n.driver), held[n.driver] == nil, busy[n.driver] == nil
            else { return false }
            return booking.vehicleType.map { $0 == type } ?? true
        }.prefix(k)
        let durations = eta.durationsMilliseconds(from: eligible.map(\.position.coordinate), to: booking.pickup)
        return zip(eligible, durations).compactMap { n, ms in
            ms.map { DispatchCandidate(driver: n.driver, etaSeconds: ($0 + 999) / 1000, distanceMeters: n.distanceMeters) }
        }
    }

    /// Called with a trip's booking-to-first-offer time in milliseconds when its first offers go out (`cab bench
    /// dispatch` keeps them); nil in the product.
    package let firstOfferObserver = Mutex<(@Sendable (Int64) -> Void)?>(nil)
}
