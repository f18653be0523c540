import CabAPI
import CabCore
import CabDispatch
import Synchronization
import Testing

/// The package hooks `cab bench dispatch` and `/metrics` read the booking-to-first-offer figures from.
@Suite struct FirstOfferObserverTests {
    /// A trip's first offers are reported once, with the time since booking and the stages this node timed.
    @Test func aTripsFirstOffersAreReportedOnceWithTheTimeSinceBookingAndItsStages() throws {
        let h = try TripHarness(dispatch: DispatchConfiguration(batchSize: 1, searchRadiiMeters: [3_000]))
        let seen = Mutex<[Int64]>([])
        h.dispatch.observeFirstOffers { ms in seen.withLock { $0.append(ms) } }
        let stages = Mutex<[FirstOfferStage: [Double]]>([:])
        h.dispatch.observeFirstOfferStages { stage, seconds in
            stages.withLock { $0[stage, default: []].append(seconds) }
        }
        let a = h.driver(at: RiverMap.south(2))
        let b = h.driver(at: RiverMap.south(4))
        let streams = try [a, b].map {
            try SSEReader(h.call("GET", "/v1/driver/stream", query: ["access_token": $0.token]))
        }
        h.advance(seconds: 1)
        let id = try #require(h.book(h.rider(), from: RiverMap.south(1), to: RiverMap.south(8)).string("id"))
        #expect(streams[0].read().map(\.event) == ["offer"])
        #expect(seen.withLock { $0 } == [0])  // the manual clock has not moved since the booking
        // One node: the booking's commit, its wait to start, the time until dispatch began (0 on the manual
        // clock) and the search; no reads of another node's booking, no fenced write.
        let timed = stages.withLock { $0 }
        #expect(Set(timed.keys) == [.commit, .startQueue, .heard, .search])
        #expect(timed.values.allSatisfy { $0.count == 1 && $0[0] >= 0 && $0[0] < 60 })
        #expect(timed[.heard] == [0])
        // a declines after 3 s: b's offer is the trip's second batch, not a first offer.
        h.advance(seconds: 3)
        #expect(h.call("POST", "/v1/trips/\(id)/decline", token: a.token).status == 200)
        #expect(streams[1].read().map(\.event) == ["offer"])
        #expect(seen.withLock { $0 } == [0])
        #expect(stages.withLock { $0 }.values.allSatisfy { $0.count == 1 })
    }

    /// Queued bookings start side by side: a driver near all of them is offered one trip, never two at once.
    @Test func tripsStartingTogetherNeverOfferOneDriverTwoTrips() throws {
        let h = try TripHarness(dispatch: DispatchConfiguration(batchSize: 1, searchRadiiMeters: [3_000]))
        let driver = h.driver(at: RiverMap.south(2))
        let stream = try SSEReader(h.call("GET", "/v1/driver/stream", token: driver.token))
        let driverID = try #require(DriverID(driver.id))
        h.advance(seconds: 1)
        let rider = try #require(RiderID(h.rider().id))
        var random = SystemRandomNumberGenerator()
        h.dispatch.suspendQueuedStarts()
        var trips: [BookingID] = []
        for _ in 0..<12 {
            let at = h.clock.now()
            let new = Booking(
                id: .timeOrdered(at: at, using: &random), riderID: rider, pickup: RiverMap.south(1),
                pickupName: nil, dropoff: RiverMap.south(8), dropoffName: nil, routeDistanceMeters: 700,
                routeDurationSeconds: 90, fareEstimate: Money(minorUnits: 84, currency: .eur), vehicleType: nil,
                pin: "1234", createdAt: at, routePolyline: nil)
            trips.append(try h.dispatch.book(new, idempotencyKey: nil).booking.id)
        }
        h.dispatch.resumeQueuedStarts()
        h.dispatch.waitForQueuedBookings()
        #expect(trips.count { h.dispatch.isOffered($0, to: driverID) } == 1)
        #expect(stream.read().filter { $0.event == "offer" }.count == 1)
    }
}
