import CabAPI
import CabCore
import CabDispatch
import CabGeo
import CabRouting
import CabStore
import CabTracking
import Synchronization

/// What a trip simulation does: how many drivers, how often riders book, for how long, how people misbehave.
public struct TripSimulationConfiguration: Sendable {
    /// Simulated drivers, online from the start at random places on the map.
    public var drivers: Int
    /// Bookings per hour (a Poisson process).
    public var bookingsPerHour: Double
    /// How long riders keep booking, seconds; the run then continues until every trip has ended.
    public var durationSeconds: Int
    /// The chance a driver declines an offer.
    public var declineProbability: Double
    /// The chance a rider cancels while waiting for the driver.
    public var riderCancelProbability: Double
    /// The chance a driver cancels after accepting.
    public var driverCancelProbability: Double
    /// The random seed (runs are reproducible).
    public var seed: UInt64
    /// Dispatch settings.
    public var dispatch: DispatchConfiguration

    /// Creates a configuration.
    public init(
        drivers: Int = 30, bookingsPerHour: Double = 120, durationSeconds: Int = 3_600,
        declineProbability: Double = 0.15,
        riderCancelProbability: Double = 0.05, driverCancelProbability: Double = 0.02, seed: UInt64 = 1,
        dispatch: DispatchConfiguration = DispatchConfiguration()
    ) {
        precondition(
            drivers > 0 && bookingsPerHour > 0 && durationSeconds > 0, "a simulation needs drivers, riders and time")
        self.drivers = drivers
        self.bookingsPerHour = bookingsPerHour
        self.durationSeconds = durationSeconds
        self.declineProbability = declineProbability
        self.riderCancelProbability = riderCancelProbability
        self.driverCancelProbability = driverCancelProbability
        self.seed = seed
        self.dispatch = dispatch
    }
}

/// What a simulation ended with.
public struct TripSimulationReport: Sendable, Codable {
    /// Bookings made.
    public var bookings = 0
    /// Bookings by final state.
    public var finalStates: [String: Int] = [:]
    /// Offers declined by drivers.
    public var declines = 0
    /// Simulated seconds run (booking period plus the drain).
    public var simulatedSeconds = 0
    /// Mean seconds from acceptance to pickup.
    public var meanPickupWaitSeconds = 0.0
    /// Problems found by the consistency check (empty: every trip terminal, histories chain, fares set).
    public var inconsistencies: [String] = []

    enum CodingKeys: String, CodingKey {
        case bookings, declines, inconsistencies
        case finalStates = "final_states"
        case simulatedSeconds = "simulated_s"
        case meanPickupWaitSeconds = "mean_pickup_wait_s"
    }
}

/// Riders booking at a rate while drivers accept (or decline), drive to the pickup along the road, start with the
/// rider's PIN, drive to the drop-off and complete, some riders and drivers cancelling; all in process against a
/// `DispatchCoordinator` over a real store, with a simulated clock stepped one second at a time (an hour of
/// trips runs in seconds). Ends with a consistency check of the store.
public final class TripSimulation {
    let configuration: TripSimulationConfiguration
    let store: SQLiteStore
    let routing: RoutingService
    let clock: SimulationClock
    let coordinator: DispatchCoordinator
    var random: SplitMix64
    var drivers: [SimulatedDriver] = []
    var riders: [RiderID] = []
    var plannedCancels: [(at: Instant, trip: BookingID)] = []
    var tripIDs: [BookingID] = []
    var report = TripSimulationReport()
    let places: [Coordinate]

    /// A simulation on `graph` (routed with `index` when given) writing into `store`, starting at `start`.
    public init(
        graph: RoadGraph, index: FastRouterIndex? = nil, store: SQLiteStore, configuration: TripSimulationConfiguration,
        start: Instant = Instant(millisecondsSinceEpoch: 1_780_000_000_000)
    ) {
        self.configuration = configuration
        self.store = store
        routing = RoutingService(graph: graph, index: index)
        let clock = SimulationClock(start)
        self.clock = clock
        let now: @Sendable () -> Instant = { clock.now }
        coordinator = DispatchCoordinator(
            store: store, fleet: LiveFleet(), eta: RoadETAEstimator(routing: routing), tariff: .standard,
            configuration: .init(dispatch: configuration.dispatch), now: now)
        random = SplitMix64(seed: configuration.seed)
        places = graph.routableNodeCoordinates
        precondition(!places.isEmpty, "the map has no roads")
    }

    var now: Instant { clock.now }

    func place() -> Coordinate { places[Int(random.next() % UInt64(places.count))] }

    func chance(_ p: Double) -> Bool { random.nextDouble() < p }

    /// Runs the booking period, then steps until every trip has ended (at most two more hours), and checks the store.
    public func run() throws -> TripSimulationReport {
        try createAccounts()
        let perSecond = configuration.bookingsPerHour / 3600
        var second = 0
        while second < configuration.durationSeconds
            || (hasOpenTrips() && second < configuration.durationSeconds + 7_200)
        {
            if second < configuration.durationSeconds && chance(perSecond) { try book() }
            try step()
            clock.advance(seconds: 1)
            coordinator.tick()
            second += 1
        }
        report.simulatedSeconds = second
        try check()
        return report
    }

    func createAccounts() throws {
        let hash = { TokenHash(bytes: (0..<32).map { _ in UInt8.random(in: 0...255) }) }
        for i in 0..<configuration.drivers {
            let d = Driver(
                id: .random(using: &random), name: "Driver \(i)", vehicle: "Car", plate: "SIM-\(i)", createdAt: now)
            try store.createDriver(d, tokenHash: hash())
            var driver = SimulatedDriver(id: d.id, position: place())
            report(driver.position, for: &driver)
            try coordinator.setOnline(d.id, true)
            drivers.append(driver)
        }
        for i in 0..<max(10, configuration.drivers) {
            let r = Rider(id: .random(using: &random), name: "Rider \(i)", createdAt: now)
            try store.createRider(r, tokenHash: hash())
            riders.append(r.id)
        }
    }

    func book() throws {
        let pickup = place()
        let dropoff = place()
        guard let plan = try? routing.route(from: pickup, to: dropoff), plan.route.distanceMeters > 100 else { return }
        let meters = Int(plan.route.distanceMeters.rounded())
        let seconds = max(1, plan.route.durationMilliseconds / 1000)
        let booking = Booking(
            id: .random(using: &random), riderID: riders[Int(random.next() % UInt64(riders.count))], pickup: pickup,
            dropoff: dropoff, routeDistanceMeters: meters, routeDurationSeconds: seconds,
            fareEstimate: Tariff.standard.fare(distanceMeters: meters, durationSeconds: seconds).total,
            pin: Booking.randomPIN(using: &random), createdAt: now)
        _ = try coordinator.book(booking, idempotencyKey: nil)
        coordinator.waitForQueuedBookings()  // offered before the next simulated second, as before
        report.bookings += 1
        tripIDs.append(booking.id)
        if chance(configuration.riderCancelProbability) {
            plannedCancels.append((now.adding(seconds: 20 + Int(random.next() % 200)), booking.id))
        }
    }

    func hasOpenTrips() -> Bool {
        drivers.contains { $0.trip != nil } || coordinator.openTripCounts.dispatching > 0
    }

    /// Writes a fix to the live index and the trail.
    func report(_ position: Coordinate, for driver: inout SimulatedDriver) {
        let t = now
        driver.position = position
        _ = coordinator.fleet.ingest(
            [LocationFix(coordinate: position, timeMilliseconds: t.millisecondsSinceEpoch, accuracyMeters: 5)],
            from: driver.id,
            now: t.millisecondsSinceEpoch)
        _ = try? store.append([DriverLocationRecord(driverID: driver.id, time: t, coordinate: position)])
        driver.lastReport = t
    }
}

/// The simulation's clock: moved by the simulation, read by the coordinator.
final class SimulationClock: Sendable {
    private let time: Mutex<Instant>
    init(_ start: Instant) { time = Mutex(start) }
    var now: Instant { time.withLock { $0 } }
    func advance(seconds: Int) { time.withLock { $0 = $0.adding(seconds: seconds) } }
}
