import CabCore
import CabGeo
import CabStore
import Foundation

/// Durable booking creation measured straight against the store (no HTTP): many threads each creating
/// bookings as fast as commits allow. `cab bench` prints the result; tests never time anything.
public enum StoreBenchmark {
    /// What one run measured.
    public struct Result: Sendable, Codable {
        /// Writer threads.
        public var writers: Int
        /// Bookings created (each durable before its call returned).
        public var bookings: Int
        /// Bookings per second over the whole run.
        public var bookingsPerSecond: Double
        /// Median latency of one create, milliseconds.
        public var p50Milliseconds: Double
        /// 99th percentile latency of one create, milliseconds.
        public var p99Milliseconds: Double
        /// Mean bookings per committed transaction (the group commit's effect).
        public var bookingsPerCommit: Double

        enum CodingKeys: String, CodingKey {
            case writers, bookings
            case bookingsPerSecond = "bookings_per_s"
            case p50Milliseconds = "p50_ms"
            case p99Milliseconds = "p99_ms"
            case bookingsPerCommit = "bookings_per_commit"
        }
    }

    /// Creates `writers × bookingsPerWriter` bookings in a fresh store at `path` (which must not exist) and
    /// measures throughput and per-call latency.
    public static func run(path: String, writers: Int = 64, bookingsPerWriter: Int = 200) throws -> Result {
        let store = try SQLiteStore(path: path)
        defer { store.close() }
        let start = Instant(millisecondsSinceEpoch: 1_780_000_000_000)
        let riders = (0..<writers).map { _ in RiderID.random() }
        for rider in riders {
            try store.createRider(
                Rider(id: rider, name: "bench", createdAt: start), tokenHash: TokenHash(bytes: randomBytes(32)))
        }
        let fare = Tariff.standard.fare(distanceMeters: 5_000, durationSeconds: 600).total
        let before = store.writeStatistics
        let latencies = LatencyLog()
        let clock = ContinuousClock()
        let began = clock.now
        let group = DispatchGroup()
        for w in 0..<writers {
            group.enter()
            Thread {
                defer { group.leave() }
                var mine: [Duration] = []
                for i in 0..<bookingsPerWriter {
                    let booking = Booking(
                        id: .random(), riderID: riders[w], pickup: Coordinate(latitude: 60.17, longitude: 24.94),
                        dropoff: Coordinate(latitude: 60.2, longitude: 24.9), routeDistanceMeters: 5_000,
                        routeDurationSeconds: 600, fareEstimate: fare, pin: "1234", createdAt: start.adding(seconds: i))
                    let t0 = clock.now
                    do {
                        _ = try store.create(
                            booking, idempotencyKey: IdempotencyKey(key: "\(i)", requestFingerprint: "b"))
                        mine.append(clock.now - t0)
                    } catch {
                        latencies.fail(error)
                    }
                }
                latencies.add(mine)
            }.start()
        }
        group.wait()
        let elapsed = clock.now - began
        if let error = latencies.firstError { throw error }
        let sorted = latencies.all.sorted()
        let after = store.writeStatistics
        func ms(_ d: Duration) -> Double { d.inMilliseconds }
        func percentile(_ p: Double) -> Double {
            sorted.isEmpty ? 0 : ms(sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))])
        }
        return Result(
            writers: writers, bookings: sorted.count, bookingsPerSecond: Double(sorted.count) / (ms(elapsed) / 1e3),
            p50Milliseconds: percentile(0.5), p99Milliseconds: percentile(0.99),
            bookingsPerCommit: Double(after.writes - before.writes) / Double(max(1, after.batches - before.batches)))
    }

    static func randomBytes(_ n: Int) -> [UInt8] {
        var g = SystemRandomNumberGenerator()
        return (0..<n).map { _ in UInt8.random(in: 0...255, using: &g) }
    }
}

/// Latencies gathered from the benchmark's threads.
private final class LatencyLog: @unchecked Sendable {
    // @unchecked Sendable: both fields are only touched under `lock`.
    private let lock = NSLock()
    private var durations: [Duration] = []
    private var errors: [any Error] = []

    func add(_ d: [Duration]) { lock.withLock { durations += d } }
    func fail(_ e: any Error) { lock.withLock { errors.append(e) } }
    var all: [Duration] { lock.withLock { durations } }
    var firstError: (any Error)? { lock.withLock { errors.first } }
}
