import CabCore
import CabDispatch
import CabTestSupport
import Foundation
import Testing

/// `cab serve`'s ticker: besides its regular tick, a batch of offers ends when its timer is due, not at the next
/// tick (which left offer timeouts up to a tick late: p50 ~270 ms in the chaos runs).
@Suite struct DispatchTickerTests {
    @Test func aBatchEndsWhenItsOffersRunOutNotAtTheNextTick() throws {
        let h = try TripHarness(dispatch: DispatchConfiguration(offerSeconds: 1, batchSize: 1))
        let ticker = DispatchTicker()
        ticker.start(h.dispatch, every: .seconds(3_600))  // no tick during the test: only the wake-up can end it
        defer { ticker.stop() }
        let near = h.driver(at: RiverMap.south(1))
        let far = h.driver(at: RiverMap.south(3))
        let booked = h.book(h.rider(), from: RiverMap.south(1), to: RiverMap.south(8))
        let id = try #require(booked.string("id"))
        h.dispatch.waitForQueuedBookings()  // the first batch is out, to the nearer driver, with its timer set
        // The far driver holds no offer yet.
        #expect(h.call("POST", "/v1/trips/\(id)/accept", token: far.token).status != 200)
        h.clock.advance(seconds: 1.1)  // the offer ran out; the wake-up armed for it fires within a second
        #expect(
            eventually(within: 5) { h.call("POST", "/v1/trips/\(id)/accept", token: far.token).status == 200 },
            "the next batch went out without a tick")
        #expect(h.call("POST", "/v1/trips/\(id)/accept", token: near.token).status != 200)
    }
}
