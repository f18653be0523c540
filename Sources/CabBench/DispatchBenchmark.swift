import CabAPI
import CabCore
import CabDispatch
import CabGeo
import CabRouting
import CabStore
import CabTracking
import Dispatch
import Synchronization

/// `cab bench dispatch`: the dispatch decision (candidates from the live index and their road-ETA ranking) and
/// booking-to-first-offer latency with many online drivers and a steady booking rate. Figures, never asserted.
public enum DispatchBenchmark {
    /// The figures (keys as issue 7 lists them).
    public struct Result: Sendable, Codable {
        /// Median time to find and rank the candidates of one booking, microseconds.
        public var decisionMedianMicroseconds: Double
        /// 99th percentile of the same.
        public var decisionP99Microseconds: Double
        /// Mean candidates ranked per decision (at most the configured 50).
        public var meanCandidates: Double
        /// Drivers online in the fleet.
        public var onlineDrivers: Int
        /// Bookings per second offered to dispatch in the latency run.
        public var bookingsPerSecond: Double
        /// Bookings made in the latency run.
        public var bookings: Int
        /// Median booking-to-first-offer, milliseconds (includes the durable `dispatching` write).
        public var bookingToOfferMedianMilliseconds: Double
        /// 99th percentile of the same.
        public var bookingToOfferP99Milliseconds: Double
        /// The road graph's node count.
        public var graphNodes: Int

        enum CodingKeys: String, CodingKey {
            case bookings
            case decisionMedianMicroseconds = "decision_median_us"
            case decisionP99Microseconds = "decision_p99_us"
            case meanCandidates = "mean_candidates"
            case onlineDrivers = "online_drivers"
            case bookingsPerSecond = "bookings_per_s"
            case bookingToOfferMedianMilliseconds = "booking_to_offer_median_ms"
            case bookingToOfferP99Milliseconds = "booking_to_offer_p99_ms"
            case graphNodes = "graph_nodes"
        }
    }

    /// Runs both measurements on `graph` with a store at `storePath` (created; durable writes).
    public static func run(
        graph: RoadGraph, index: FastRouterIndex? = nil, storePath: String, drivers: Int = 10_000,
        bookingsPerSecond: Double = 50, bookings: Int = 500,
        decisions: Int = 300, seed: UInt64 = 1
    ) throws -> Result {
        let store = try SQLiteStore(path: storePath)
        defer { store.close() }
        let routing = RoutingService(graph: graph, index: index)
        let coordinator = DispatchCoordinator(
            store: store, fleet: LiveFleet(), eta: RoadETAEstimator(routing: routing), tariff: .standard,
            configuration: .init(dispatch: DispatchConfiguration(searchRadiiMeters: [3_000, 6_000, 12_000])),
            now: { Instant.now() })
        var random = SplitMix64(seed: seed)
        let places = graph.routableNodeCoordinates
        func place() -> Coordinate { places[Int(random.next() % UInt64(places.count))] }
        let hash = { TokenHash(bytes: (0..<32).map { _ in UInt8.random(in: 0...255) }) }
        for i in 0..<drivers {
            let d = Driver(
                id: .random(using: &random), name: "D\(i)", vehicle: "Car", plate: "B-\(i)", createdAt: .now())
            try store.createDriver(d, tokenHash: hash())
            let t = Instant.now().millisecondsSinceEpoch
            _ = coordinator.fleet.ingest(
                [LocationFix(coordinate: place(), timeMilliseconds: t, accuracyMeters: 5)], from: d.id, now: t)
            try coordinator.setOnline(d.id, true)
        }
        let rider = Rider(id: .random(using: &random), name: "R", createdAt: .now())
        try store.createRider(rider, tokenHash: hash())

        // 1. Decision time: candidates within the widest radius, ranked by road ETA, for random pickups.
        var times: [Double] = []
        var counted = 0
        let clock = ContinuousClock()
        for _ in 0..<decisions {
            let booking = makeBooking(rider.id, place(), place(), using: &random)
            var found: [DispatchCandidate] = []
            let elapsed = clock.measure {
                found = coordinator.candidates(for: booking, radiusMeters: 12_000, excluding: [])
                var machine = DispatchMachine()
                _ = machine.start(at: booking.createdAt)
                _ = machine.candidatesFound(found, at: booking.createdAt)
            }
            counted += found.count
            times.append(elapsed.inMicroseconds)
        }

        // 2. Booking to first offer at a steady rate from two threads (drivers keep their offers: none answer).
        // The coordinator reports each trip's first offers through its package hook; the bench keeps the times.
        let firstOffers = Mutex<[Int64]>([])
        coordinator.observeFirstOffers { ms in firstOffers.withLock { $0.append(ms) } }
        let made = Mutex<[Booking]>([])
        for _ in 0..<bookings { made.withLock { $0.append(makeBooking(rider.id, place(), place(), using: &random)) } }
        let all = made.withLock { $0 }
        let start = DispatchTime.now().uptimeNanoseconds
        let interval = 1e9 / bookingsPerSecond
        let errors = Mutex(0)
        DispatchQueue.concurrentPerform(iterations: 2) { lane in
            for i in stride(from: lane, to: all.count, by: 2) {
                let due = start + UInt64(Double(i) * interval)
                while DispatchTime.now().uptimeNanoseconds < due { usleepShim(200) }
                var b = all[i]
                b.createdAt = .now()
                b.statusChangedAt = b.createdAt
                do {
                    // What POST /v1/bookings does: the booking is stored with dispatch's first step, then offered.
                    _ = try coordinator.book(b, idempotencyKey: nil)
                } catch {
                    errors.withLock { $0 += 1 }
                }
            }
        }
        coordinator.waitForQueuedBookings()
        let latencies = firstOffers.withLock { $0 }.map(Double.init)
        return Result(
            decisionMedianMicroseconds: percentile(times, 0.5), decisionP99Microseconds: percentile(times, 0.99),
            meanCandidates: Double(counted) / Double(max(1, decisions)), onlineDrivers: drivers,
            bookingsPerSecond: bookingsPerSecond, bookings: bookings,
            bookingToOfferMedianMilliseconds: percentile(latencies, 0.5),
            bookingToOfferP99Milliseconds: percentile(latencies, 0.99), graphNodes: graph.nodeCount)
    }

    static func makeBooking(
        _ rider: RiderID, _ pickup: Coordinate, _ dropoff: Coordinate, using random: inout SplitMix64
    ) -> Booking {
        Booking(
            id: .random(using: &random), riderID: rider, pickup: pickup, dropoff: dropoff, routeDistanceMeters: 1_000,
            routeDurationSeconds: 120,
            fareEstimate: Tariff.standard.fare(distanceMeters: 1_000, durationSeconds: 120).total,
            pin: Booking.randomPIN(using: &random), createdAt: .now())
    }

    static func percentile(_ values: [Double], _ p: Double) -> Double {
        guard !values.isEmpty else { return 0 }
        let sorted = values.sorted()
        return sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * p).rounded()))]
    }
}

#if canImport(Glibc)
    import Glibc
    /// Sleeps `microseconds` (the benchmark's pacing; never used in tests).
    func usleepShim(_ microseconds: UInt32) { usleep(microseconds) }
#else
    import Darwin
    func usleepShim(_ microseconds: UInt32) { usleep(microseconds) }
#endif
