import CabCore
import CabGeo
import CabPostgres
import CabTestSupport
import Foundation
import Synchronization
import Testing

@testable import CabStore

/// What the application calls on `SQLiteStore` beyond the ports in `CabCore`, with the signatures it has
/// today. Both stores conform with an empty extension: that is the check that `PostgresStore` has the same
/// methods, so it can take the ports being extracted from `SQLiteStore` (issue 14) with a one-line extension.
protocol StoreParity: Sendable {
    func openTrips() throws -> [Booking]
    func newestOpenTrips(limit: Int) throws -> [Booking]
    func transitions(_ changes: [(updated: Booking, record: TripTransitionRecord)]) throws -> [Bool]
    func recordDecline(of booking: BookingID, by driver: DriverID, at time: Instant) throws
    func declines(of booking: BookingID) throws -> Set<DriverID>
    func addCredential(_ hash: TokenHash, for driver: DriverID, at time: Instant) throws
    func rate(_ booking: BookingID, _ rating: TripRating) throws -> Booking
    func ratings(of drivers: [DriverID]) throws -> [DriverID: DriverRatingSummary]
    func serverSecret(
        named name: String, at time: Instant, make: @escaping @Sendable () throws -> [UInt8]
    ) throws -> [UInt8]
    func pickupStatistics(limit: Int, now: Instant?) throws -> PickupStatistics
    func newestLocation(of driver: DriverID) throws -> DriverLocationRecord?
    var health: StoreHealth { get }
    var writeStatistics: (batches: Int, writes: Int) { get }
    func close()
}

extension SQLiteStore: StoreParity {}
extension PostgresStore: StoreParity {}

/// The rest of the store on both databases: the same inputs give the same answers.
@Suite struct StoreParityTests {
    typealias Kind = RepositoryConformanceTests.Kind

    /// A booking of a new rider taken from `requested` through `commands` (by the driver of `s`).
    static func trip(_ s: Stores, _ commands: [TripCommand], at offset: Int = 0) throws -> BookingID {
        let (rider, _) = try s.makeRider()
        let booking = try s.store.create(Stores.booking(for: rider, at: offset), idempotencyKey: nil).booking
        for (i, command) in commands.enumerated() {
            let actor: Principal = command == .dispatch || command == .noDriverFound ? .system : .driver(s.driver)
            _ = try s.store.apply(
                command, to: booking.id, by: actor, at: Stores.start.adding(seconds: offset + 10 * (i + 1)),
                tariff: .standard)
        }
        return booking.id
    }

    static func toCompletion(_ driver: DriverID) -> [TripCommand] {
        [
            .dispatch, .accept(driver), .arrive, .start(code: "1234"),
            .complete(distanceMeters: 2_000, durationSeconds: 300, basis: .trail, trailPolyline: "_p~iF~ps|U_ulLnnqC"),
        ]
    }

    @Test(arguments: Kind.allCases) func openTripsOldestFirstAndTheBoardNewestFirst(kind: Kind) throws {
        let s = try Stores(kind)
        defer { s.close() }
        let waiting = try Self.trip(s, [], at: 0)
        let dispatching = try Self.trip(s, [.dispatch], at: 10)
        _ = try Self.trip(s, [.dispatch, .noDriverFound], at: 20)
        _ = try Self.trip(s, Self.toCompletion(s.driver), at: 25)
        let riding = try Self.trip(s, [.dispatch, .accept(s.driver)], at: 30)
        #expect(try s.store.openTrips().map(\.id) == [waiting, dispatching, riding])
        #expect(try s.store.newestOpenTrips(limit: 2).map(\.id) == [riding, dispatching])
        #expect(try s.store.newestOpenTrips(limit: 0).isEmpty)
    }

    @Test(arguments: Kind.allCases) func declinesAreRememberedOnce(kind: Kind) throws {
        let s = try Stores(kind)
        defer { s.close() }
        let booking = try Self.trip(s, [.dispatch])
        let other = DriverID.random()
        try s.store.createDriver(
            Driver(id: other, name: "Eero", vehicle: "Toyota", plate: "XYZ-9", createdAt: Stores.start),
            tokenHash: Stores.randomHash())
        try s.store.recordDecline(of: booking, by: s.driver, at: Stores.start.adding(seconds: 5))
        try s.store.recordDecline(of: booking, by: s.driver, at: Stores.start.adding(seconds: 6))
        try s.store.recordDecline(of: booking, by: other, at: Stores.start.adding(seconds: 7))
        #expect(try s.store.declines(of: booking) == [s.driver, other])
        #expect(try s.store.declines(of: .random()).isEmpty)
    }

    @Test(arguments: Kind.allCases) func batchedTransitionsWriteTheWinnersOnly(kind: Kind) throws {
        let s = try Stores(kind)
        defer { s.close() }
        let a = try Self.trip(s, [])
        let b = try Self.trip(s, [])
        let t = Stores.start.adding(seconds: 100)
        func dispatched(_ id: BookingID, from: TripState) throws -> (updated: Booking, record: TripTransitionRecord) {
            var booking = try #require(try s.store.booking(id))
            booking.status = .dispatching
            booking.statusChangedAt = t
            booking.version += 1  // a transition is the stored version's next
            return (
                booking,
                TripTransitionRecord(
                    bookingID: id, from: from, to: .dispatching, event: .dispatch, actor: .system, at: t)
            )
        }
        // The second change expects a state the booking is not in: it loses, the first is written.
        let changes = [try dispatched(a, from: .requested), try dispatched(b, from: .dispatching)]
        #expect(try s.store.transitions(changes) == [true, false])
        #expect(try s.store.booking(a)?.status == .dispatching)
        #expect(try s.store.booking(b)?.status == .requested)
        #expect(try s.store.history(a).map(\.event) == [.book, .dispatch])
        #expect(try s.store.history(b).map(\.event) == [.book])
        #expect(try s.store.transitions([]) == [])
    }

    @Test(arguments: Kind.allCases) func aCompletedTripIsRatedOnceAndDriversAverage(kind: Kind) throws {
        let s = try Stores(kind)
        defer { s.close() }
        let at = Stores.start.adding(seconds: 900)
        let open = try Self.trip(s, [.dispatch])
        #expect(throws: CoreError.self) { try s.store.rate(open, TripRating(stars: 5, comment: nil, at: at)) }
        let first = try Self.trip(s, Self.toCompletion(s.driver), at: 100)
        let second = try Self.trip(s, Self.toCompletion(s.driver), at: 200)
        #expect(try s.store.rate(first, TripRating(stars: 3, comment: "ok", at: at)).rating?.stars == 3)
        let again = #expect(throws: CoreError.self) {
            try s.store.rate(first, TripRating(stars: 5, comment: nil, at: at))
        }
        #expect(again?.code == .alreadyRated)
        let missing = #expect(throws: CoreError.self) {
            try s.store.rate(.random(), TripRating(stars: 5, comment: nil, at: at))
        }
        #expect(missing?.code == .notFound)
        _ = try s.store.rate(second, TripRating(stars: 4, comment: nil, at: at))
        #expect(try s.store.booking(first)?.rating == (try TripRating(stars: 3, comment: "ok", at: at)))
        let summary = try #require(try s.store.ratings(of: [s.driver, DriverID.random(), s.driver])[s.driver])
        #expect(summary.average == 3.5 && summary.count == 2)
        #expect(try s.store.ratings(of: []).isEmpty)
    }

    @Test(arguments: Kind.allCases) func savedPlacesReplaceByLabelAndStopAtTheLimit(kind: Kind) throws {
        let s = try Stores(kind)
        defer { s.close() }
        let (rider, _) = try s.makeRider()
        func place(_ label: String, _ i: Int) throws -> SavedPlace {
            try SavedPlace(
                label: label, name: "Place \(i)",
                coordinate: Coordinate(latitude: 60.17 + Double(i) * 0.001, longitude: 24.94),
                address: "Street \(i)", updatedAt: Stores.start.adding(seconds: i))
        }
        #expect(try s.store.save(try place("Work", 1), for: rider))
        #expect(try s.store.save(try place("Home", 2), for: rider))
        #expect(try s.store.save(try place("home", 3), for: rider) == false)  // same label, any case
        #expect(try s.store.savedPlaces(of: rider).map(\.name) == ["Place 3", "Place 1"])
        for i in 2..<SavedPlace.maximumPerRider { _ = try s.store.save(try place("Spot \(i)", 10 + i), for: rider) }
        let full = #expect(throws: CoreError.self) { try s.store.save(try place("One more", 99), for: rider) }
        #expect(full?.code == .invalidValue)
        #expect(try s.store.removeSavedPlace(labeled: "WORK", for: rider))
        #expect(try s.store.removeSavedPlace(labeled: "Work", for: rider) == false)
        #expect(try s.store.savedPlaces(of: rider).count == SavedPlace.maximumPerRider - 1)
    }

    @Test(arguments: Kind.allCases) func aServerSecretIsMadeOnceAndADeviceKeyActsForItsDriver(kind: Kind) throws {
        let s = try Stores(kind)
        defer { s.close() }
        let made = Atomic<Int>(0)
        let make: @Sendable () throws -> [UInt8] = {
            made.add(1, ordering: .relaxed)
            return (0..<32).map { _ in UInt8.random(in: 0...255) }
        }
        let first = try s.store.serverSecret(named: "qr", at: Stores.start, make: make)
        #expect(try s.store.serverSecret(named: "qr", at: Stores.start, make: make) == first)
        #expect(made.load(ordering: .relaxed) == 1)
        #expect(try s.store.serverSecret(named: "other", at: Stores.start, make: make) != first)
        let device = Stores.randomHash()
        try s.store.addCredential(device, for: s.driver, at: Stores.start)
        #expect(try s.store.principal(forTokenHash: device) == .driver(s.driver))
        #expect(try s.store.revokeToken(device, at: Stores.start.adding(seconds: 1)))
        #expect(try s.store.principal(forTokenHash: device) == nil)
    }

    @Test(arguments: Kind.allCases) func theNewestLocationIsTheLatestFix(kind: Kind) throws {
        let s = try Stores(kind)
        defer { s.close() }
        #expect(try s.store.newestLocation(of: s.driver) == nil)
        let fixes = (0..<5).map { i in
            DriverLocationRecord(
                driverID: s.driver, time: Stores.start.adding(seconds: 4 - i),
                coordinate: Coordinate(latitude: 60.17, longitude: 24.94 + Double(i) * 1e-4))
        }
        _ = try s.store.append(fixes)
        #expect(try s.store.newestLocation(of: s.driver) == fixes[0])
    }

    /// One city's day run on both stores with the same ids and times: every read answers the same.
    @Test func bothStoresAnswerTheSameAfterTheSameDay() throws {
        let driver = DriverID.random()
        let riders = (0..<6).map { _ in RiderID.random() }
        let bookings = riders.enumerated().map { i, rider in Stores.booking(for: rider, at: i * 60) }
        func day(_ s: Stores) throws {
            for rider in riders {
                try s.store.createRider(
                    Rider(id: rider, name: "R", createdAt: Stores.start), tokenHash: Stores.randomHash())
            }
            for b in bookings {
                _ = try s.store.create(b, idempotencyKey: IdempotencyKey(key: b.id.rawValue, requestFingerprint: "f"))
            }
            func run(_ id: BookingID, _ commands: [TripCommand], from offset: Int) throws {
                for (i, command) in commands.enumerated() {
                    let actor: Principal = command == .dispatch || command == .noDriverFound ? .system : .driver(driver)
                    _ = try s.store.apply(
                        command, to: id, by: actor, at: Stores.start.adding(seconds: offset + 37 * (i + 1)),
                        tariff: .standard)
                }
            }
            try run(bookings[0].id, Self.toCompletion(driver), from: 0)
            try run(bookings[1].id, Self.toCompletion(driver), from: 400)
            try run(bookings[2].id, [.dispatch, .accept(driver), .redispatch(reason: .driverCancelled)], from: 800)
            try run(bookings[3].id, [.dispatch, .noDriverFound], from: 900)
            try run(bookings[4].id, [.dispatch], from: 1_000)
            _ = try s.store.rate(
                bookings[0].id, TripRating(stars: 5, comment: "kiitos", at: Stores.start.adding(seconds: 2_000)))
            _ = try s.store.rate(
                bookings[1].id, TripRating(stars: 2, comment: nil, at: Stores.start.adding(seconds: 2_000)))
            try s.store.recordDecline(of: bookings[4].id, by: driver, at: Stores.start.adding(seconds: 1_010))
            _ = try s.store.save(
                try SavedPlace(label: "Home", name: "Kotona", coordinate: bookings[0].dropoff, updatedAt: Stores.start),
                for: riders[0])
        }
        let sqlite = try Stores(.sqlite, driver: driver)
        defer { sqlite.close() }
        let postgres = try Stores(.postgres, driver: driver)
        defer { postgres.close() }
        try day(sqlite)
        try day(postgres)
        let now = Stores.start.adding(seconds: 3_000)
        let (a, b) = (sqlite.store, postgres.store)
        #expect(try a.openTrips() == b.openTrips())
        #expect(try a.newestOpenTrips(limit: 2) == b.newestOpenTrips(limit: 2))
        #expect(try a.pickupStatistics(limit: 100_000, now: now) == b.pickupStatistics(limit: 100_000, now: now))
        #expect(try a.ratings(of: [driver]) == b.ratings(of: [driver]))
        #expect(try a.declines(of: bookings[4].id) == b.declines(of: bookings[4].id))
        #expect(try a.savedPlaces(of: riders[0]) == b.savedPlaces(of: riders[0]))
        #expect(try a.bookings(BookingQuery(limit: 100)) == b.bookings(BookingQuery(limit: 100)))
        let completed = BookingQuery(driverID: driver, statuses: [.completed], limit: 1)
        let firstPage = try a.bookings(completed)
        #expect(try b.bookings(completed) == firstPage)
        let next = BookingQuery(driverID: driver, statuses: [.completed], limit: 1, cursor: firstPage.nextCursor)
        #expect(try a.bookings(next) == b.bookings(next))
        for booking in bookings { #expect(try a.history(booking.id) == b.history(booking.id)) }
        let stats = try postgres.store.pickupStatistics(limit: 100_000, now: Stores.start.adding(seconds: 3_000))
        #expect(stats.trips[TripState.completed.rawValue] == 2 && stats.abandoned == 1 && stats.redispatched == 1)
    }
}
