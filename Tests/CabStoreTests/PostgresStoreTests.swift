import CabCore
import CabGeo
import CabPostgres
import CabTestSupport
import Foundation
import Synchronization
import Testing

@testable import CabStore

/// What only the PostgreSQL store has: share links, group commit across callers, day partitions of the
/// location history, and its schema's migrations.
@Suite struct PostgresStoreTests {
    @Test func shareLinksOpenTheirBookingAndAreListedOldestFirst() throws {
        let s = try Stores(.postgres)
        defer { s.close() }
        guard let store = s.store as? PostgresStore else { preconditionFailure("a PostgreSQL store was asked for") }
        let (rider, _) = try s.makeRider()
        let booking = try store.create(Stores.booking(for: rider), idempotencyKey: nil).booking.id
        let other = try store.create(Stores.booking(for: rider, at: 5), idempotencyKey: nil).booking.id
        try store.createShareLink(token: "tok-b", booking: booking, at: Stores.start.adding(seconds: 2))
        try store.createShareLink(token: "tok-a", booking: booking, at: Stores.start.adding(seconds: 1))
        try store.createShareLink(token: "tok-a", booking: booking, at: Stores.start.adding(seconds: 9))  // a repeat
        #expect(try store.shareLinkBooking(token: "tok-a") == booking)
        #expect(try store.shareLinkBooking(token: "nope") == nil)
        #expect(try store.shareLinks(of: booking) == ["tok-a", "tok-b"])
        #expect(try store.shareLinks(of: other).isEmpty)
        let taken = #expect(throws: StoreError.self) {
            try store.createShareLink(token: "tok-a", booking: other, at: Stores.start)
        }
        #expect(taken?.code == .constraint)
        let unknown = #expect(throws: StoreError.self) {
            try store.createShareLink(token: "tok-c", booking: .random(), at: Stores.start)
        }
        #expect(unknown?.code == .constraint)
        // Durable: another node on the same database sees them.
        let node = try PostgresStore(.init(conninfo: store.configuration.conninfo, connections: 1))
        defer { node.close() }
        #expect(try node.shareLinks(of: booking) == ["tok-a", "tok-b"])
    }

    @Test func concurrentBookingsShareCommitsAndAllAreDurable() throws {
        let database = try SharedPostgres.newDatabase()
        let store = try PostgresStore(.init(conninfo: database, connections: 4, writers: 2, maximumBatch: 32))
        let s = try Stores(postgres: store)
        let riders = try (0..<16).map { _ in try s.makeRider().0 }
        let before = store.writeStatistics
        let made = Mutex<[BookingID]>([])
        let failures = Atomic<Int>(0)
        let group = DispatchGroup()
        for (n, rider) in riders.enumerated() {
            for k in 0..<4 {
                group.enter()
                Thread {
                    defer { group.leave() }
                    for i in 0..<10 {
                        do {
                            let b = try store.create(
                                Stores.booking(for: rider, at: n * 100 + k * 10 + i), idempotencyKey: nil)
                            made.withLock { $0.append(b.booking.id) }
                        } catch {
                            failures.add(1, ordering: .relaxed)
                        }
                    }
                }.start()
            }
        }
        group.wait()
        let after = store.writeStatistics
        let ids = made.withLock { $0 }
        #expect(failures.load(ordering: .relaxed) == 0)
        #expect(ids.count == 640)
        #expect(after.writes - before.writes == 640)
        #expect(after.batches - before.batches < 640 / 2, "64 concurrent callers should share commits: \(after)")
        store.close()
        let reopened = try PostgresStore(.init(conninfo: database, connections: 2))
        defer { reopened.close() }
        for id in ids { #expect(try reopened.booking(id) != nil) }
    }

    @Test func anAsyncCreateAnswersAfterItsCommit() throws {
        let s = try Stores(.postgres)
        defer { s.close() }
        let (rider, _) = try s.makeRider()
        let answered = DispatchSemaphore(value: 0)
        let outcome = Mutex<Result<BookingCreation, any Error>?>(nil)
        s.store.create(Stores.booking(for: rider), idempotencyKey: IdempotencyKey(key: "a", requestFingerprint: "f")) {
            result in
            outcome.withLock { $0 = result }
            answered.signal()
        }
        #expect(answered.wait(timeout: .now() + 10) == .success)
        let made = try #require(try outcome.withLock { $0 }?.get())
        #expect(made.created)
        #expect(try s.store.booking(made.booking.id) == made.booking)
        // A booking of an unknown rider fails alone, with the store's constraint error.
        let refused = Mutex<(any Error)?>(nil)
        s.store.create(Stores.booking(for: .random()), idempotencyKey: nil) { result in
            if case .failure(let error) = result { refused.withLock { $0 = error } }
            answered.signal()
        }
        #expect(answered.wait(timeout: .now() + 10) == .success)
        #expect((refused.withLock { $0 } as? StoreError)?.code == .constraint)
    }

    @Test func aBatchThatLosesADeadlockRunsAgainAndBothNodesWrite() throws {
        let database = try SharedPostgres.newDatabase()
        let a = try PostgresStore(.init(conninfo: database, connections: 2, writers: 1))
        let b = try PostgresStore(.init(conninfo: database, connections: 2, writers: 1))
        defer {
            a.close()
            b.close()
        }
        let s = try Stores(postgres: a)
        let (first, _) = try s.makeRider("first")
        let (second, _) = try s.makeRider("second")
        // Each node locks one rider, waits until the other holds the other rider, then asks for it: a deadlock
        // on the first attempt, which PostgreSQL breaks by failing one side (40P01).
        let holding = [DispatchSemaphore(value: 0), DispatchSemaphore(value: 0)]
        let attempts = Mutex<[Int]>([0, 0])
        func job(_ n: Int, _ mine: RiderID, _ theirs: RiderID) -> @Sendable (PostgresConnection) throws -> Void {
            { c in
                let attempt = attempts.withLock { counts -> Int in
                    counts[n] += 1
                    return counts[n]
                }
                try c.query("UPDATE riders SET name = $1 WHERE id = $2", ["node \(n)", mine.rawValue])
                if attempt == 1 {
                    holding[n].signal()
                    _ = holding[1 - n].wait(timeout: .now() + 10)
                }
                try c.query("UPDATE riders SET name = $1 WHERE id = $2", ["node \(n)", theirs.rawValue])
            }
        }
        let failures = Mutex<[String]>([])
        let group = DispatchGroup()
        let bodies = [job(0, first, second), job(1, second, first)]
        for (store, body) in zip([a, b], bodies) {
            group.enter()
            Thread {
                defer { group.leave() }
                do {
                    let _: Void = try store.write(body)
                } catch {
                    failures.withLock { $0.append("\(error)") }
                }
            }.start()
        }
        group.wait()
        #expect(failures.withLock { $0 } == [])
        let runs = attempts.withLock { $0 }.sorted()
        #expect(runs[0] == 1 && runs[1] >= 2, "one side ran again after the deadlock: \(runs)")
        let names = [try a.rider(first)?.name, try a.rider(second)?.name]
        #expect(names[0] == names[1], "the side that ran last wrote both riders: \(names)")
    }

    /// Tokens are cached for `tokenCacheMilliseconds`: a token revoked on node A stops working on A at once and on
    /// node B once B's cached entry is older than that (one second by default, issue 17's bound); an unknown
    /// token is never cached.
    @Test func aTokenRevokedOnOneNodeStopsOnTheOtherWithinTheCacheTime() throws {
        let database = try SharedPostgres.newDatabase()
        let clock = ManualClock()
        let milliseconds: @Sendable () -> Int64 = { clock.now().millisecondsSinceEpoch }
        let a = try PostgresStore(.init(conninfo: database, connections: 2, monotonicMilliseconds: milliseconds))
        let b = try PostgresStore(.init(conninfo: database, connections: 2, monotonicMilliseconds: milliseconds))
        defer {
            a.close()
            b.close()
        }
        #expect(b.configuration.tokenCacheMilliseconds == 1_000)
        let rider = RiderID.random()
        let token = StoreFixture.randomHash()
        let unknown = StoreFixture.randomHash()
        #expect(try b.principal(forTokenHash: unknown) == nil)
        try a.createRider(Rider(id: rider, name: "Cached", createdAt: clock.now()), tokenHash: token)
        #expect(try b.principal(forTokenHash: token) == .rider(rider))
        #expect(b.cachedPrincipal(forTokenHash: token) == .rider(rider))
        #expect(b.cachedPrincipal(forTokenHash: unknown) == nil)
        #expect(try a.principal(forTokenHash: token) == .rider(rider))
        #expect(try a.revokeToken(token, at: clock.now()))
        #expect(try a.principal(forTokenHash: token) == nil)
        clock.advance(seconds: 0.9)
        #expect(try b.principal(forTokenHash: token) == .rider(rider))
        clock.advance(seconds: 0.2)
        #expect(b.cachedPrincipal(forTokenHash: token) == nil)
        #expect(try b.principal(forTokenHash: token) == nil)
    }

    @Test func twoStoresOpeningAtOnceMigrateOnce() throws {
        let database = try SharedPostgres.newDatabase()
        let opened = Mutex<[PostgresStore]>([])
        let failures = Mutex<[String]>([])
        let group = DispatchGroup()
        for _ in 0..<2 {
            group.enter()
            Thread {
                defer { group.leave() }
                do {
                    let store = try PostgresStore(.init(conninfo: database, connections: 2))
                    opened.withLock { $0.append(store) }
                } catch {
                    failures.withLock { $0.append("\(error)") }
                }
            }.start()
        }
        group.wait()
        #expect(failures.withLock { $0 } == [])
        let stores = opened.withLock { $0 }
        defer { for s in stores { s.close() } }
        let c = try PostgresConnection(conninfo: database)
        let versions = try c.query("SELECT version FROM cab_schema ORDER BY version").rows.compactMap { try $0.int(0) }
        #expect(versions == Array(1...PostgresStore.schemaVersion))
    }

    @Test func versionTwoKeepsTheTrailsOfVersionOne() throws {
        let database = try SharedPostgres.newDatabase()
        let c = try PostgresConnection(conninfo: database)
        #expect(try PostgresSchema.migrate(c, through: 1) == [1])
        let driver = DriverID.random()
        try c.query(
            "INSERT INTO drivers (id, name, vehicle, plate, vehicle_type, created_ms) VALUES ($1, $2, $3, $4, $5, $6)",
            [driver.rawValue, "Aino", "Octavia", "ABC-1", VehicleType.standard.rawValue, Int64(0)]
                as [any PostgresBindable])
        let day: Int64 = 20_000  // 2024-10-03: far in the past of any partition the store makes
        for i in 0..<50 {
            try c.query(
                "INSERT INTO driver_locations (driver_id, time_ms, lat, lon) VALUES ($1, $2, $3, $4)",
                [driver.rawValue, day * PostgresStore.dayMilliseconds + Int64(i) * 1_000, 60.17, 24.94]
                    as [any PostgresBindable])
        }
        let store = try PostgresStore(.init(conninfo: database, connections: 2))
        defer { store.close() }
        let from = Instant(millisecondsSinceEpoch: day * PostgresStore.dayMilliseconds)
        #expect(try store.trail(of: driver, from: from, to: from.adding(seconds: 86_400), limit: 100).count == 50)
        #expect(try PostgresSchema.version(c) == PostgresStore.schemaVersion)
    }

    @Test func locationHistoryIsPartitionedByDayWithRetention() throws {
        let database = try SharedPostgres.newDatabase()
        let today = PostgresStore.day(of: try #require(RFC3339.parse("2026-12-01T00:00:00Z")))
        let clock = Mutex<Instant>(Instant(millisecondsSinceEpoch: today * PostgresStore.dayMilliseconds + 3_600_000))
        let store = try PostgresStore(
            .init(
                conninfo: database, connections: 2, locationPartitionsAhead: 2, locationRetentionDays: 3,
                wallClock: { clock.withLock { $0 } }))
        defer { store.close() }
        #expect(
            try store.locationPartitions() == [
                "driver_locations_p20261130", "driver_locations_p20261201", "driver_locations_p20261202",
                "driver_locations_p20261203",
            ])
        let s = try Stores(postgres: store)
        func fixes(day: Int64, count: Int) -> [DriverLocationRecord] {
            (0..<count).map { i in
                DriverLocationRecord(
                    driverID: s.driver,
                    time: Instant(millisecondsSinceEpoch: day * PostgresStore.dayMilliseconds + Int64(i) * 60_000),
                    coordinate: Coordinate(latitude: 60.17, longitude: 24.94))
            }
        }
        // Today's fixes land in today's partition; a day far ahead has none yet and waits in the default one.
        #expect(try store.append(fixes(day: today, count: 10)) == 10)
        #expect(try store.append(fixes(day: today + 5, count: 7)) == 7)
        func rows(_ table: String) throws -> Int {
            let c = try PostgresConnection(conninfo: database)
            return try c.query("SELECT count(*) FROM \(table)").first?.int(0) ?? -1  // a table name of this test
        }
        #expect(try rows("driver_locations_p20261201") == 10)
        #expect(try rows("driver_locations_default") == 7)
        // Four days later, the first write of the day makes the new days' partitions (moving the waiting rows
        // into theirs) and drops the days older than three.
        clock.withLock { $0 = Instant(millisecondsSinceEpoch: (today + 4) * PostgresStore.dayMilliseconds + 60_000) }
        #expect(try store.append(fixes(day: today + 4, count: 3)) == 3)
        let partitions = try store.locationPartitions()
        #expect(partitions.first == "driver_locations_p20261203")
        #expect(partitions.last == "driver_locations_p20261207")
        #expect(!partitions.contains("driver_locations_p20261201"))
        #expect(try rows("driver_locations_default") == 0)
        #expect(try rows("driver_locations_p20261206") == 7)
        let all = try store.trail(of: s.driver, from: .epoch, to: Instant(millisecondsSinceEpoch: .max), limit: 1_000)
        #expect(all.count == 10)  // today's ten are gone with their day; 3 + 7 remain
        #expect(all == fixes(day: today + 4, count: 3) + fixes(day: today + 5, count: 7))
    }

    @Test func theDatabaseIsNamedWithoutItsPassword() {
        #expect(
            PostgresStore.redacted("postgres://cab:s3cret@db.example:5432/city?sslmode=require")
                == "postgres://db.example:5432/city")
        #expect(
            PostgresStore.redacted("host=/run/pg dbname=city user=cab password=s3cret") == "PostgreSQL /run/pg/city")
        #expect(!PostgresStore.redacted("postgresql://cab:s3cret@a,b/city").contains("s3cret"))
    }

    @Test func dayNumbersAndPartitionNamesRoundTrip() throws {
        for day: Int64 in [0, 59, 10_956, 20_423, 20_788, 36_524, 100_000] {
            let name = PostgresStore.partitionName(day: day)
            #expect(PostgresStore.partitionDay(name) == day, "\(name)")
        }
        #expect(PostgresStore.partitionName(day: 0) == "driver_locations_p19700101")
        let leapDay = PostgresStore.day(of: try #require(RFC3339.parse("2024-02-29T12:00:00Z")))
        #expect(PostgresStore.partitionName(day: leapDay) == "driver_locations_p20240229")
        #expect(PostgresStore.partitionDay("driver_locations_default") == nil)
        #expect(PostgresStore.partitionDay("driver_locations_p20261341") == nil)
        #expect(PostgresStore.day(of: Instant(millisecondsSinceEpoch: -1)) == -1)
    }
}
