import CabCore
import CabGeo
import CabHTTP
import Foundation
import Testing

@testable import CabAPI

/// Starting a ride needs what only the rider has: the PIN or the QR's secret, never the booking id; wrong codes
/// are limited per trip and the dispatcher hears of a lock.
@Suite struct TripStartCodeTests {
    struct ArrivedTrip {
        var id: String
        var pin: String
        var driver: TripHarness.Account
        var rider: TripHarness.Account
    }

    /// A trip whose driver has arrived at the pickup.
    func arrivedTrip(_ h: TripHarness) throws -> ArrivedTrip {
        let driver = h.driver(at: RiverMap.south(1))
        let rider = h.rider()
        let booked = h.book(rider, from: RiverMap.south(0), to: RiverMap.south(9))
        let id = try #require(booked.string("id"))
        #expect(h.call("POST", "/v1/trips/\(id)/accept", token: driver.token).status == 200)
        #expect(h.call("POST", "/v1/trips/\(id)/arrived", token: driver.token).status == 200)
        return ArrivedTrip(id: id, pin: try #require(booked.string("pin")), driver: driver, rider: rider)
    }

    func start(_ h: TripHarness, _ trip: ArrivedTrip, _ code: String, token: String? = nil) -> TripHarness.Answer {
        h.call("POST", "/v1/trips/\(trip.id)/start", token: token ?? trip.driver.token, body: ["code": code])
    }

    func wrongPIN(_ trip: ArrivedTrip) -> String { trip.pin == "0000" ? "1111" : "0000" }

    /// The probe's attack: the driver sends the booking id it has from the offer.
    @Test func theBookingIDDoesNotStartTheTrip() throws {
        let h = try TripHarness()
        let trip = try arrivedTrip(h)
        #expect(start(h, trip, trip.id).status == 422)
        #expect(start(h, trip, trip.id.uppercased()).status == 422)
        #expect(start(h, trip, trip.id + ".").status == 422)
        #expect(start(h, trip, trip.id + ".0123456789abcdef0123").status == 422)
        #expect(try h.status(of: trip.id) == .arrived)
    }

    @Test func theRidersQRPayloadStartsTheTripAndOnlyItsOwn() throws {
        let h = try TripHarness()
        let trip = try arrivedTrip(h)
        let codes = RiderCodes(store: h.store, now: { h.clock.now() })  // the same store: the same key
        let payload = try codes.payload(for: BookingID(trip.id)!)
        #expect(payload.hasPrefix(trip.id + ".") && payload.count == trip.id.count + 1 + RiderCodes.secretHexDigits)
        // Another booking's valid QR is a wrong code here.
        let other = try codes.payload(for: BookingID.random())
        #expect(start(h, trip, other).status == 422)
        let started = start(h, trip, payload.uppercased())  // scanners may upper-case the alphanumeric QR mode
        #expect(started.status == 200 && started.string("status") == "in_progress")
    }

    @Test func theQRImagesAreTheRidersAndTheDispatchersNotTheDrivers() throws {
        let h = try TripHarness()
        let trip = try arrivedTrip(h)
        let desk = try h.dispatcherToken()
        for image in ["qr.svg", "qr.png"] {
            let path = "/v1/bookings/\(trip.id)/\(image)"
            #expect(h.call("GET", path, token: trip.rider.token).status == 200)
            #expect(h.call("GET", path, token: desk).status == 200)
            let asDriver = h.call("GET", path, token: trip.driver.token)
            #expect(asDriver.status == 403, "\(image)")
            #expect(asDriver.response.headers.contains { $0.0 == "Content-Type" && $0.1 == "application/problem+json" })
        }
    }

    @Test func fiveWrongCodesLockTheStartWithRetryAfterAndTellTheDispatcher() throws {
        let h = try TripHarness()
        let trip = try arrivedTrip(h)
        for attempt in 1...4 {
            let wrong = start(h, trip, wrongPIN(trip))
            #expect(wrong.status == 422)
            #expect(wrong.string("detail")?.contains("\(5 - attempt) more wrong codes lock") == true)
        }
        let locked = start(h, trip, wrongPIN(trip))
        #expect(locked.status == 429)
        #expect(locked.response.headers.contains { $0.0 == "Retry-After" && $0.1 == "300" })
        #expect(locked.string("detail")?.contains("locked after too many wrong codes") == true)
        // Locked: even the right PIN waits (no oracle for the 6th guess).
        #expect(start(h, trip, trip.pin).status == 429)
        #expect(h.metrics.counter("trip_start_lockouts_total", help: "").value() == 1)
        #expect(h.metrics.counter("trip_start_wrong_codes_total", help: "").value() == 5)
        #expect(try h.status(of: trip.id) == .arrived)

        h.clock.advance(seconds: 301)
        #expect(start(h, trip, trip.pin).status == 200)
    }

    @Test func bruteForceIsSlowedToAFewCodesPerLock() throws {
        let h = try TripHarness()
        let trip = try arrivedTrip(h)
        var checked = 0
        var lockedAnswers = 0
        var guesses = 0
        for guess in 0..<200 {
            let code = String(format: "%04d", guess)
            if code == trip.pin { continue }  // the PIN is random: it may lie in the range
            guesses += 1
            let answer = start(h, trip, code)
            if answer.status == 422 { checked += 1 }
            if answer.status == 429 { lockedAnswers += 1 }
        }
        // The fifth wrong code locks; the rest are refused unread.
        #expect(checked == 4 && lockedAnswers == guesses - 4)
        #expect(try h.status(of: trip.id) == .arrived)
    }

    @Test func anotherDriversCodesDoNotLockTheTrip() throws {
        let h = try TripHarness()
        let trip = try arrivedTrip(h)
        let stranger = h.driver(at: RiverMap.north(3))
        for _ in 0..<8 { #expect(start(h, trip, wrongPIN(trip), token: stranger.token).status != 422) }
        #expect(start(h, trip, trip.pin).status == 200)
    }
}

@Suite struct StartAttemptLimiterTests {
    let trip = BookingID.random()

    @Test func locksAfterFiveAndEachLockIsTwiceAsLongUpToADay() {
        var limiter = StartAttemptLimiter()
        var now: Int64 = 1_000_000
        var lengths: [Int] = []
        for _ in 0..<12 {
            for k in 1...5 {
                #expect(limiter.check(trip, now: now) == .allowed)
                let outcome = limiter.wrongCode(trip, now: now)
                #expect(outcome.remaining == 5 - k)
                if k == 5, let seconds = outcome.lockedForSeconds { lengths.append(seconds) }
            }
            #expect(limiter.check(trip, now: now) == .locked(retryAfterSeconds: lengths.last!))
            now += Int64(lengths.last!) * 1000
        }
        #expect(lengths.prefix(5) == [300, 600, 1200, 2400, 4800])
        #expect(lengths.last == 86_400)
    }

    @Test func aRightCodeClearsTheCount() {
        var limiter = StartAttemptLimiter()
        for _ in 0..<4 { _ = limiter.wrongCode(trip, now: 0) }
        limiter.succeeded(trip)
        #expect(limiter.wrongCode(trip, now: 0).remaining == 4)
    }

    @Test func theTableStaysBounded() {
        var limiter = StartAttemptLimiter()
        limiter.maximumTrips = 100
        for i in 0..<1_000 { _ = limiter.wrongCode(BookingID.random(), now: Int64(i)) }
        #expect(limiter.count <= 100)
    }
}
