import CabCore
import CabGeo
import Foundation
import Testing

@testable import CabStore

/// What issue 13 adds to a stored booking (migration 5): re-dispatches and the late mark, the receipt, the rating.
@Suite struct JourneyStoreTests {
    /// A booking of a new rider taken from `requested` through `commands` (by the fixture's driver).
    static func trip(_ f: StoreFixture, _ commands: [TripCommand]) throws -> BookingID {
        let rider = try f.makeRider()
        let booking = f.newBooking(for: rider)
        _ = try f.store.create(booking, idempotencyKey: nil, transitions: [])
        for (i, command) in commands.enumerated() {
            let actor: Principal = command == .dispatch || command == .noDriverFound ? .system : .driver(f.driver)
            try f.apply(command, to: booking.id, by: actor, at: 10 * (i + 1))
        }
        return booking.id
    }

    /// From `requested` to `completed` with `driver`.
    static func toCompletion(_ driver: DriverID) -> [TripCommand] {
        [
            .dispatch, .accept(driver), .arrive, .start(code: "1234"),
            .complete(distanceMeters: 2_000, durationSeconds: 300, basis: .trail, trailPolyline: "_p~iF~ps|U_ulLnnqC"),
        ]
    }

    @Test func theReceiptAndTheRedispatchesSurviveAReopen() throws {
        let f = try StoreFixture()
        let commands = Self.toCompletion(f.driver)
        var withHandBack = Array(commands.prefix(2))
        withHandBack += [.redispatch(reason: .driverCancelled), .accept(f.driver)] + commands.dropFirst(2)
        let id = try Self.trip(f, withHandBack)
        try f.reopen()
        let stored = try #require(try f.store.booking(id))
        #expect(stored.status == .completed && stored.redispatchCount == 1)
        #expect(
            stored.receipt
                == TripReceipt(
                    distanceMeters: 2_000, durationSeconds: 300, basis: .trail, trailPolyline: "_p~iF~ps|U_ulLnnqC"))
        #expect(try f.store.history(id).map(\.event).contains(.redispatch))
    }

    @Test func aCompletedTripIsRatedOnceDurablyAndDriversAverageTheirRatings() throws {
        let f = try StoreFixture()
        let commands = Self.toCompletion(f.driver)
        let open = try Self.trip(f, Array(commands.prefix(2)))
        let at = f.clockStart.adding(seconds: 900)
        let early = #expect(throws: CoreError.self) {
            try f.store.rate(open, TripRating(stars: 5, comment: nil, at: at))
        }
        #expect(early?.code == .notCompleted)
        let first = try Self.trip(f, commands)
        let second = try Self.trip(f, commands)
        #expect(try f.store.rate(first, TripRating(stars: 3, comment: "ok", at: at)).rating?.stars == 3)
        let again = #expect(throws: CoreError.self) {
            try f.store.rate(first, TripRating(stars: 5, comment: nil, at: at))
        }
        #expect(again?.code == .alreadyRated)
        _ = try f.store.rate(second, TripRating(stars: 4, comment: nil, at: at))
        try f.reopen()
        #expect(try f.store.booking(first)?.rating == (try TripRating(stars: 3, comment: "ok", at: at)))
        let summary = try #require(try f.store.ratings(of: [f.driver, DriverID.random()])[f.driver])
        #expect(summary.average == 3.5 && summary.count == 2)
        #expect(try f.store.ratings(of: []).isEmpty)
    }

    @Test func statisticsCountLateAbandonedAndRedispatchedTrips() throws {
        let f = try StoreFixture()
        // An abandoned trip, and one handed back once.
        _ = try Self.trip(f, [.dispatch, .noDriverFound])
        _ = try Self.trip(f, [.dispatch, .accept(f.driver), .redispatch(reason: .driverCancelled)])
        let stats = try f.store.pickupStatistics(now: f.clockStart.adding(seconds: 3_600))
        #expect(stats.abandoned == 1 && stats.redispatched == 1 && stats.redispatches == 1)
        #expect(stats.late == 0 && stats.onTime == 0 && stats.tripsPickedUp == 0)
    }
}
