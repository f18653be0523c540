import CabAPI
import CabCore
import Synchronization
import Testing

/// The package hook `cab bench dispatch` reads its booking-to-first-offer figure from.
@Suite struct FirstOfferObserverTests {
    @Test func aTripsFirstOffersAreReportedOnceWithTheTimeSinceBooking() throws {
        let h = try TripHarness(dispatch: DispatchConfiguration(batchSize: 1, searchRadiiMeters: [3_000]))
        let seen = Mutex<[Int64]>([])
        h.dispatch.observeFirstOffers { ms in seen.withLock { $0.append(ms) } }
        let a = h.driver(at: RiverMap.south(2))
        let b = h.driver(at: RiverMap.south(4))
        let streams = try [a, b].map {
            try SSEReader(h.call("GET", "/v1/driver/stream", query: ["access_token": $0.token]))
        }
        h.advance(seconds: 1)
        let id = try #require(h.book(h.rider(), from: RiverMap.south(1), to: RiverMap.south(8)).string("id"))
        #expect(streams[0].read().map(\.event) == ["offer"])
        #expect(seen.withLock { $0 } == [0])  // the manual clock has not moved since the booking
        // a declines after 3 s: b's offer is the trip's second batch, not a first offer.
        h.advance(seconds: 3)
        #expect(h.call("POST", "/v1/trips/\(id)/decline", token: a.token).status == 200)
        #expect(streams[1].read().map(\.event) == ["offer"])
        #expect(seen.withLock { $0 } == [0])
    }
}
