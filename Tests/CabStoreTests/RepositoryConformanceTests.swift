import CabCore
import CabGeo
import CabPostgres
import CabTestSupport
import Foundation
import Synchronization
import Testing

@testable import CabStore

/// The store ports' contract, run on both stores: SQLite on a real file, PostgreSQL on a real server (one
/// server for the suite, a database of its own per test). Whatever one store does, the other must do too.
@Suite struct RepositoryConformanceTests {
    enum Kind: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case sqlite, postgres
        var testDescription: String { rawValue }
    }

    @Test(arguments: Kind.allCases) func accountsAndTokens(kind: Kind) throws {
        let s = try Stores(kind)
        defer { s.close() }
        let (rider, riderToken) = try s.makeRider("Aino")
        #expect(try s.store.rider(rider)?.name == "Aino")
        #expect(try s.store.principal(forTokenHash: riderToken) == .rider(rider))
        #expect(try s.store.principal(forTokenHash: Stores.randomHash()) == nil)
        #expect(try s.store.driver(s.driver)?.plate == "ABC-123")
        #expect(try s.store.revokeToken(riderToken, at: Stores.start.adding(seconds: 5)))
        #expect(try s.store.revokeToken(riderToken, at: Stores.start.adding(seconds: 6)) == false)
        #expect(try s.store.principal(forTokenHash: riderToken) == nil)
        let desk = Dispatcher(id: .random(), name: "Night desk", createdAt: Stores.start)
        let deskToken = Stores.randomHash()
        try s.store.createDispatcher(desk, tokenHash: deskToken)
        #expect(try s.store.dispatcher(desk.id)?.name == "Night desk")
        #expect(try s.store.principal(forTokenHash: deskToken) == .dispatcher(desk.id))
    }

    @Test(arguments: Kind.allCases) func oneBookingPerIdempotencyKey(kind: Kind) throws {
        let s = try Stores(kind)
        defer { s.close() }
        let (rider, _) = try s.makeRider()
        let key = IdempotencyKey(key: "trip-1", requestFingerprint: "f1")
        let first = try s.store.create(Stores.booking(for: rider), idempotencyKey: key)
        #expect(first.created)
        let again = try s.store.create(Stores.booking(for: rider), idempotencyKey: key)
        #expect(!again.created)
        #expect(again.booking == first.booking)
        let other = #expect(throws: CoreError.self) {
            try s.store.create(
                Stores.booking(for: rider), idempotencyKey: IdempotencyKey(key: "trip-1", requestFingerprint: "f2"))
        }
        #expect(other?.code == .idempotencyConflict)
        // Keys are per rider.
        let (someoneElse, _) = try s.makeRider()
        #expect(try s.store.create(Stores.booking(for: someoneElse), idempotencyKey: key).created)
        #expect(try s.store.bookings(BookingQuery(riderID: rider)).items.count == 1)
        let long = IdempotencyKey(key: String(repeating: "k", count: 256), requestFingerprint: "f")
        #expect(throws: CoreError.self) { try s.store.create(Stores.booking(for: rider), idempotencyKey: long) }
    }

    @Test(arguments: Kind.allCases) func transitionsAreACompareAndSetWithHistory(kind: Kind) throws {
        let s = try Stores(kind)
        defer { s.close() }
        let (rider, _) = try s.makeRider()
        let booking = try s.store.create(Stores.booking(for: rider), idempotencyKey: nil).booking
        let t = Stores.start.adding(seconds: 10)
        let (dispatching, _) = try s.store.apply(.dispatch, to: booking.id, by: .system, at: t, tariff: .standard)
        #expect(dispatching.status == .dispatching)
        // A writer that read `requested` before the dispatch loses, and is told the state that won.
        var stale = booking
        stale.status = .cancelledByRider
        let record = TripTransitionRecord(
            bookingID: booking.id, from: .requested, to: .cancelledByRider, event: .riderCancel, actor: .rider(rider),
            at: t)
        let lost = #expect(throws: CoreError.self) { try s.store.transition(stale, record: record) }
        #expect(lost?.code == .transitionConflict)
        #expect((lost?.underlying as? TripRefusal)?.currentState == .dispatching)
        let (accepted, _) = try s.store.apply(
            .accept(s.driver), to: booking.id, by: .driver(s.driver), at: t, tariff: .standard)
        #expect(accepted.driverID == s.driver)
        #expect(try s.store.booking(booking.id) == accepted)
        #expect(try s.store.history(booking.id).map(\.event) == [.book, .dispatch, .accept])
        #expect(try s.store.booking(.random()) == nil)
    }

    /// The trip's version counts its transitions and the compare-and-set checks it: a writer that read the
    /// trip `accepted` by one driver loses after it went back to dispatch and another driver accepted, though the
    /// status is `accepted` again.
    @Test(arguments: Kind.allCases) func aTripBackInAStateItHadIsNotItsOlderSelf(kind: Kind) throws {
        let s = try Stores(kind)
        defer { s.close() }
        let (rider, _) = try s.makeRider()
        let booking = try s.store.create(Stores.booking(for: rider), idempotencyKey: nil).booking
        #expect(booking.version == 1)
        let t = Stores.start.adding(seconds: 10)
        _ = try s.store.apply(.dispatch, to: booking.id, by: .system, at: t, tariff: .standard)
        let (first, _) = try s.store.apply(
            .accept(s.driver), to: booking.id, by: .driver(s.driver), at: t, tariff: .standard)
        #expect(first.version == 3)
        _ = try s.store.apply(
            .redispatch(reason: .driverCancelled), to: booking.id, by: .driver(s.driver), at: t, tariff: .standard)
        let (again, _) = try s.store.apply(
            .accept(s.driver), to: booking.id, by: .driver(s.driver), at: t, tariff: .standard)
        #expect(again.status == first.status && again.version == 5)
        #expect(try s.store.booking(booking.id)?.version == 5)
        #expect(try s.store.history(booking.id).count == 5)
        var stale = TripStateMachine(booking: first, tariff: .standard)
        let step = try stale.handle(.depart, by: .driver(s.driver), at: t)
        let lost = #expect(throws: CoreError.self) {
            try s.store.transition(stale.booking, record: try #require(step.record))
        }
        #expect(lost?.code == .transitionConflict)
        #expect(try s.store.booking(booking.id)?.status == .accepted)
    }

    @Test(arguments: Kind.allCases) func stepsTakenAtCreationAreStoredWithIt(kind: Kind) throws {
        let s = try Stores(kind)
        defer { s.close() }
        let (rider, _) = try s.makeRider()
        var machine = TripStateMachine(booking: Stores.booking(for: rider), tariff: .standard)
        let step = try machine.handle(.dispatch, by: .system, at: Stores.start)
        let record = try #require(step.record)
        let created = try s.store.create(machine.booking, idempotencyKey: nil, transitions: [record])
        #expect(try s.store.booking(created.booking.id)?.status == .dispatching)
        #expect(try s.store.history(created.booking.id).map(\.to) == [.requested, .dispatching])
        #expect(try s.store.booking(created.booking.id)?.version == 2)
    }

    @Test(arguments: Kind.allCases) func listsFilterAndPageNewestFirst(kind: Kind) throws {
        let s = try Stores(kind)
        defer { s.close() }
        let (rider, _) = try s.makeRider()
        let (other, _) = try s.makeRider()
        var ids: [BookingID] = []
        for i in 0..<7 {
            ids.append(try s.store.create(Stores.booking(for: rider, at: i), idempotencyKey: nil).booking.id)
        }
        _ = try s.store.create(Stores.booking(for: other, at: 3), idempotencyKey: nil)
        var seen: [BookingID] = []
        var cursor: String?
        repeat {
            let page = try s.store.bookings(BookingQuery(riderID: rider, limit: 3, cursor: cursor))
            seen += page.items.map(\.id)
            cursor = page.nextCursor
        } while cursor != nil
        #expect(seen == ids.reversed())
        _ = try s.store.apply(
            .dispatch, to: ids[2], by: .system, at: Stores.start.adding(seconds: 60), tariff: .standard)
        #expect(try s.store.bookings(BookingQuery(statuses: [.dispatching])).items.map(\.id) == [ids[2]])
        #expect(try s.store.bookings(BookingQuery(limit: 100)).items.count == 8)
        #expect(throws: CoreError.self) { try s.store.bookings(BookingQuery(limit: 0)) }
        #expect(throws: CoreError.self) { try s.store.bookings(BookingQuery(cursor: "not-a-cursor")) }
    }

    @Test(arguments: Kind.allCases) func trailsSkipRepeatsAndReadInOrder(kind: Kind) throws {
        let s = try Stores(kind)
        defer { s.close() }
        let fixes = (0..<1_200).map { i in
            DriverLocationRecord(
                driverID: s.driver, time: Stores.start.adding(seconds: i),
                coordinate: Coordinate(latitude: 60.17 + Double(i) * 1e-5, longitude: 24.94), accuracyMeters: 5,
                speedMetersPerSecond: i.isMultiple(of: 2) ? 8 : nil, headingDegrees: 90)
        }
        #expect(try s.store.append(Array(fixes.prefix(700))) == 700)
        #expect(try s.store.append(fixes) == 500)  // the first 700 are repeats
        let trail = try s.store.trail(
            of: s.driver, from: Stores.start.adding(seconds: 100), to: Stores.start.adding(seconds: 200), limit: 1_000)
        #expect(trail == Array(fixes[100..<200]))
        #expect(
            try s.store.trail(of: s.driver, from: Stores.start, to: Stores.start.adding(seconds: 2_000), limit: 10)
                .count == 10)
    }

    // MARK: PostgreSQL only: several nodes on one database

    @Test func twoNodesRacingOneKeyAgreeOnOneBooking() throws {
        let database = try SharedPostgres.newDatabase()
        let nodes = try (0..<2).map { _ in try PostgresStore(.init(conninfo: database, connections: 2)) }
        let s = try Stores(postgres: nodes[0])
        let (rider, _) = try s.makeRider()
        for round in 0..<20 {
            let key = IdempotencyKey(key: "race-\(round)", requestFingerprint: "same")
            let results = Mutex<[BookingCreation]>([])
            let group = DispatchGroup()
            for node in nodes {
                group.enter()
                Thread {
                    defer { group.leave() }
                    if let made = try? node.create(Stores.booking(for: rider), idempotencyKey: key) {
                        results.withLock { $0.append(made) }
                    }
                }.start()
            }
            group.wait()
            let outcomes = results.withLock { $0 }
            #expect(outcomes.count == 2)
            #expect(outcomes.filter(\.created).count == 1)
            #expect(Set(outcomes.map(\.booking.id)).count == 1)
        }
        #expect(try nodes[1].bookings(BookingQuery(riderID: rider, limit: 100)).items.count == 20)
    }

    @Test func aDriverHoldsOneOpenTripEvenAcrossNodes() throws {
        let database = try SharedPostgres.newDatabase()
        let a = try PostgresStore(.init(conninfo: database, connections: 2))
        let b = try PostgresStore(.init(conninfo: database, connections: 2))
        let s = try Stores(postgres: a)
        let (rider, _) = try s.makeRider()
        let t = Stores.start.adding(seconds: 5)
        let trips = try (0..<2).map { i in
            let booking = try a.create(Stores.booking(for: rider, at: i), idempotencyKey: nil).booking
            _ = try a.apply(.dispatch, to: booking.id, by: .system, at: t, tariff: .standard)
            return booking.id
        }
        _ = try a.apply(.accept(s.driver), to: trips[0], by: .driver(s.driver), at: t, tariff: .standard)
        let refused = #expect(throws: CoreError.self) {
            try b.apply(.accept(s.driver), to: trips[1], by: .driver(s.driver), at: t, tariff: .standard)
        }
        #expect(refused?.message.contains("another open trip") == true)
        #expect(try b.booking(trips[1])?.status == .dispatching)
    }

    @Test func twoNodesStartingAtOnceMigrateOnce() throws {
        let database = try SharedPostgres.newDatabase()
        let applied = Mutex<[[Int]]>([])
        let group = DispatchGroup()
        for _ in 0..<3 {
            group.enter()
            Thread {
                defer { group.leave() }
                do {
                    let versions = try PostgresStore.migrate(conninfo: database)
                    applied.withLock { $0.append(versions) }
                } catch {
                    Issue.record("a node failed to migrate: \(error)")
                }
            }.start()
        }
        group.wait()
        let all = applied.withLock { $0 }
        #expect(all.count == 3)
        // each version by exactly one node
        #expect(all.flatMap { $0 }.sorted() == Array(1...PostgresStore.schemaVersion))
        let store = try PostgresStore(.init(conninfo: database, migrates: false))
        #expect(try store.bookings(BookingQuery()).items.isEmpty)
    }

    @Test func aWrongPasswordOrDatabaseIsAConfigurationErrorThatSaysWhich() throws {
        let server = try SharedPostgres.server()
        let password = #expect(throws: StoreError.self) {
            try PostgresStore(.init(conninfo: server.conninfo(database: "postgres", password: "wrong")))
        }
        #expect(password?.code == .misconfigured)
        #expect(password?.message.contains("password") == true)
        #expect((password?.underlying as? PostgresError)?.code == .invalidPassword)
        let database = #expect(throws: StoreError.self) {
            try PostgresStore(.init(conninfo: server.conninfo(database: "no_such_city")))
        }
        #expect(database?.code == .misconfigured)
        #expect(database?.message.contains("does not exist") == true)
        #expect(database?.message.contains("no_such_city") == true)
        let nowhere = #expect(throws: StoreError.self) {
            try PostgresStore(.init(conninfo: "host=/nonexistent-\(getpid()) dbname=x connect_timeout=2"))
        }
        #expect(nowhere?.code == .unavailable)
    }
}

/// One PostgreSQL server for the whole test run (stopped when the process exits), a database per test.
enum SharedPostgres {
    private static let started = Mutex<Result<PostgresTestServer, any Error>?>(nil)
    private static let counter = Atomic<Int>(0)

    static func server() throws -> PostgresTestServer {
        try started.withLock { slot in
            if slot == nil {
                slot = Result(catching: { try PostgresTestServer() })
                atexit { SharedPostgres.stopAtExit() }
            }
            return try slot!.get()  // set just above
        }
    }

    /// A fresh, empty database's connection string.
    static func newDatabase() throws -> String {
        let server = try server()
        let n = counter.add(1, ordering: .relaxed).newValue
        let name = "cab_test_\(getpid())_\(n)"
        let admin = try PostgresConnection(conninfo: server.conninfo)
        try admin.execute("CREATE DATABASE \(name)")  // a name made here from digits, not input
        return server.conninfo(database: name)
    }

    private static func stopAtExit() {
        if case .success(let server)? = started.withLock({ $0 }) { server.stop() }
    }
}

/// A store of either kind with one driver, and helpers to make riders and bookings.
final class Stores {
    typealias Store = AccountRepository & BookingRepository & LocationHistoryRepository & SavedPlaceRepository
        & StoreParity
    static let start = Instant(millisecondsSinceEpoch: 1_780_000_000_000)
    let store: any Store
    let driver: DriverID
    private let cleanup: () -> Void

    init(_ kind: RepositoryConformanceTests.Kind, driver: DriverID = .random()) throws {
        self.driver = driver
        switch kind {
        case .sqlite:
            let directory = try TestData.temporaryDirectory("conformance")
            let sqlite = try SQLiteStore(path: directory.appendingPathComponent("cab.sqlite").path)
            store = sqlite
            cleanup = {
                sqlite.close()
                try? FileManager.default.removeItem(at: directory)
            }
        case .postgres:
            let postgres = try PostgresStore(.init(conninfo: SharedPostgres.newDatabase(), connections: 4, writers: 2))
            store = postgres
            cleanup = { postgres.close() }
        }
        try addDriver()
    }

    init(postgres: PostgresStore) throws {
        driver = .random()
        store = postgres
        cleanup = {}
        try addDriver()
    }

    private func addDriver() throws {
        try store.createDriver(
            Driver(id: driver, name: "Aino", vehicle: "white Škoda Octavia", plate: "ABC-123", createdAt: Self.start),
            tokenHash: Self.randomHash())
    }

    func close() { cleanup() }

    func makeRider(_ name: String = "Rider") throws -> (RiderID, TokenHash) {
        let id = RiderID.random()
        let token = Self.randomHash()
        try store.createRider(Rider(id: id, name: name, createdAt: Self.start), tokenHash: token)
        return (id, token)
    }

    static func booking(for rider: RiderID, at offsetSeconds: Int = 0) -> Booking {
        StoreFixture.newBooking(for: rider, at: start.adding(seconds: offsetSeconds))
    }

    static func randomHash() -> TokenHash { StoreFixture.randomHash() }
}

/// `cab migrate --from DIR --postgres URL`'s copy: everything the SQLite city holds reads back the same from
/// PostgreSQL, and a second run copies nothing more.
@Suite struct StoreCopierTests {
    @Test func aSQLiteCityReadsBackTheSameFromPostgreSQLAndACopyResumes() throws {
        let sqlite = try Stores(.sqlite)
        defer { sqlite.close() }
        let (rider, token) = try sqlite.makeRider("Aino")
        var made: [Booking] = []
        for i in 0..<25 {
            let key = IdempotencyKey(key: "k\(i)", requestFingerprint: "f")
            var booking = try sqlite.store.create(Stores.booking(for: rider, at: i), idempotencyKey: key).booking
            if i.isMultiple(of: 3) {
                booking = try sqlite.store.apply(
                    .dispatch, to: booking.id, by: .system, at: Stores.start.adding(seconds: 100 + i), tariff: .standard
                ).booking
            }
            made.append(booking)
        }
        _ = try sqlite.store.apply(
            .accept(sqlite.driver), to: made[0].id, by: .driver(sqlite.driver), at: Stores.start.adding(seconds: 200),
            tariff: .standard)
        let fixes = (0..<2_500).map { i in
            DriverLocationRecord(
                driverID: sqlite.driver, time: Stores.start.adding(seconds: i),
                coordinate: Coordinate(latitude: 60.17, longitude: 24.94 + Double(i) * 1e-5), accuracyMeters: 4)
        }
        #expect(try sqlite.store.append(fixes) == 2_500)
        try sqlite.store.recordDecline(of: made[1].id, by: sqlite.driver, at: Stores.start.adding(seconds: 300))
        let home = try SavedPlace(label: "Home", name: "Kotona", coordinate: made[0].dropoff, updatedAt: Stores.start)
        _ = try sqlite.store.save(home, for: rider)
        let secret = try sqlite.store.serverSecret(named: "qr", at: Stores.start) { [1, 2, 3] }
        guard let file = (sqlite.store as? SQLiteStore)?.path else {
            Issue.record("the SQLite store should know its path")
            return
        }
        let database = try SharedPostgres.newDatabase()
        let first = try StoreCopier(batchSize: 300).copy(from: file, to: database)
        #expect(first.filter { !$0.complete }.isEmpty, "\(first)")
        #expect(first.first { $0.table == "driver_locations" }?.inserted == 2_500)
        #expect(first.first { $0.table == "booking_history" }?.inserted == 25 + 9 + 1)
        let again = try StoreCopier(batchSize: 300).copy(from: file, to: database)
        #expect(again.map(\.inserted).reduce(0, +) == 0)
        #expect(again.map(\.target) == first.map(\.target))

        let postgres = try PostgresStore(.init(conninfo: database))
        #expect(try postgres.principal(forTokenHash: token) == .rider(rider))
        for booking in made {
            #expect(try postgres.booking(booking.id) == (try sqlite.store.booking(booking.id)))
            #expect(try postgres.history(booking.id) == (try sqlite.store.history(booking.id)))
        }
        // The copied city goes on working: the same key finds the same booking, and dispatch can move it.
        let repeatKey = try postgres.create(
            Stores.booking(for: rider), idempotencyKey: IdempotencyKey(key: "k3", requestFingerprint: "f"))
        #expect(!repeatKey.created && repeatKey.booking.id == made[3].id)
        let trail = try postgres.trail(
            of: sqlite.driver, from: Stores.start, to: Stores.start.adding(seconds: 10_000), limit: 10_000)
        #expect(trail == fixes)
        #expect(try postgres.declines(of: made[1].id) == [sqlite.driver])
        #expect(try postgres.savedPlaces(of: rider) == [home])
        #expect(try postgres.serverSecret(named: "qr", at: Stores.start) { [9] } == secret)
        #expect(StoreCopier.notCopied.isEmpty)
    }
}
