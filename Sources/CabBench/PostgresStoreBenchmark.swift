import CabCore
import CabGeo
import CabStore
import Foundation
import Synchronization

/// Durable bookings and location history measured straight against both stores in one run (no HTTP):
/// `writers` threads each creating bookings with an idempotency key as fast as commits allow, then batches of
/// location fixes. SQLite is the baseline. `cab bench store` prints the result; tests never time anything.
package enum PostgresStoreBenchmark {
    /// One store's figures.
    package struct Figures: Sendable, Codable {
        /// "sqlite" or "postgres".
        package var store: String
        /// Concurrent callers.
        package var writers: Int
        /// Bookings created (each durable before its call returned).
        package var bookings: Int
        /// Bookings per second over the whole run.
        package var bookingsPerSecond: Double
        /// Median latency of one create, milliseconds.
        package var p50Milliseconds: Double
        /// 99th percentile latency of one create, milliseconds.
        package var p99Milliseconds: Double
        /// Mean bookings per committed transaction (the group commit's effect).
        package var bookingsPerCommit: Double
        /// Location history rows appended per second (batches of `locationBatch`, `writers / 8` appenders).
        package var locationRowsPerSecond: Double

        enum CodingKeys: String, CodingKey {
            case store, writers, bookings
            case bookingsPerSecond = "bookings_per_s"
            case p50Milliseconds = "p50_ms"
            case p99Milliseconds = "p99_ms"
            case bookingsPerCommit = "bookings_per_commit"
            case locationRowsPerSecond = "location_rows_per_s"
        }
    }

    /// The stores a run compares, behind what the benchmark calls.
    typealias Store = AccountRepository & BookingRepository & LocationHistoryRepository

    /// Runs the benchmark on a fresh SQLite store in `directory` and on the (empty or not) PostgreSQL database
    /// at `conninfo`, one after the other.
    package static func run(
        sqliteDirectory directory: String, conninfo: String, writers: Int = 64, bookingsPerWriter: Int = 100,
        locationRows: Int = 200_000, locationBatch: Int = 500, postgresWriters: Int = 4
    ) throws -> [Figures] {
        let sqlite = try SQLiteStore(path: directory + "/cab.sqlite")
        let sqliteFigures = try measure(
            "sqlite", sqlite, statistics: { sqlite.writeStatistics }, writers: writers,
            bookingsPerWriter: bookingsPerWriter, locationRows: locationRows, locationBatch: locationBatch)
        sqlite.close()
        let postgres = try PostgresStore(
            .init(conninfo: conninfo, connections: postgresWriters + 4, writers: postgresWriters))
        defer { postgres.close() }
        let postgresFigures = try measure(
            "postgres", postgres, statistics: { postgres.writeStatistics }, writers: writers,
            bookingsPerWriter: bookingsPerWriter, locationRows: locationRows, locationBatch: locationBatch)
        return [sqliteFigures, postgresFigures]
    }

    static func measure(
        _ name: String, _ store: any Store, statistics: () -> (batches: Int, writes: Int), writers: Int,
        bookingsPerWriter: Int, locationRows: Int, locationBatch: Int
    ) throws -> Figures {
        let start = Instant(millisecondsSinceEpoch: 1_780_000_000_000)
        let riders = (0..<writers).map { _ in RiderID.random() }
        for rider in riders {
            try store.createRider(
                Rider(id: rider, name: "bench", createdAt: start),
                tokenHash: TokenHash(bytes: StoreBenchmark.randomBytes(32)))
        }
        let fare = Tariff.standard.fare(distanceMeters: 5_000, durationSeconds: 600).total
        let before = statistics()
        let latencies = Mutex<[Duration]>([])
        let failures = Mutex<[String]>([])
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
                        failures.withLock { $0.append("\(error)") }
                    }
                }
                latencies.withLock { $0 += mine }
            }.start()
        }
        group.wait()
        let elapsed = clock.now - began
        if let failure = failures.withLock({ $0.first }) {
            throw StoreError(.database, "a benchmark booking failed: \(failure)")
        }
        let after = statistics()
        let sorted = latencies.withLock { $0 }.sorted()
        func ms(_ d: Duration) -> Double { d.inMilliseconds }
        func percentile(_ p: Double) -> Double {
            sorted.isEmpty ? 0 : ms(sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))])
        }

        // Location history: one driver per appender, consecutive seconds, in batches like the tracking writer's.
        let appenders = max(1, writers / 8)
        let drivers = (0..<appenders).map { _ in DriverID.random() }
        for driver in drivers {
            try store.createDriver(
                Driver(id: driver, name: "bench", vehicle: "car", plate: "B-1", createdAt: start),
                tokenHash: TokenHash(bytes: StoreBenchmark.randomBytes(32)))
        }
        let perAppender = locationRows / appenders
        let locationsBegan = clock.now
        let locationGroup = DispatchGroup()
        for driver in drivers {
            locationGroup.enter()
            Thread {
                defer { locationGroup.leave() }
                var t = 0
                while t < perAppender {
                    let batch = (t..<min(perAppender, t + locationBatch)).map { s in
                        DriverLocationRecord(
                            driverID: driver, time: start.adding(seconds: s),
                            coordinate: Coordinate(latitude: 60.17 + Double(s % 1000) * 1e-5, longitude: 24.94),
                            accuracyMeters: 5, speedMetersPerSecond: 8, headingDegrees: 90)
                    }
                    do { _ = try store.append(batch) } catch { failures.withLock { $0.append("\(error)") } }
                    t += batch.count
                }
            }.start()
        }
        locationGroup.wait()
        if let failure = failures.withLock({ $0.first }) {
            throw StoreError(.database, "a benchmark append failed: \(failure)")
        }
        let locationSeconds = ms(clock.now - locationsBegan) / 1e3
        return Figures(
            store: name, writers: writers, bookings: sorted.count,
            bookingsPerSecond: Double(sorted.count) / (ms(elapsed) / 1e3),
            p50Milliseconds: percentile(0.5), p99Milliseconds: percentile(0.99),
            bookingsPerCommit: Double(after.writes - before.writes) / Double(max(1, after.batches - before.batches)),
            locationRowsPerSecond: Double(perAppender * appenders) / max(locationSeconds, 1e-9))
    }
}
