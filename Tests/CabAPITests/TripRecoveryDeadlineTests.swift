import CabAPI
import CabCore
import CabDispatch
import CabGeo
import Foundation
import Testing

/// Trips picked up by `recoverOpenTrips()` after a restart keep their timed transitions.
@Suite struct TripRecoveryDeadlineTests {
    /// A trip left `dispatching` with nobody to take it reaches `no_driver_found` at its dispatch deadline on the
    /// restarted coordinator (the dispatch machine itself would go on searching: it has batches to spare).
    @Test func aRecoveredDispatchingTripStillTimesOut() throws {
        let dispatch = DispatchConfiguration(maximumBatches: 10_000)
        let h = try TripHarness(dispatch: dispatch)
        let booked = h.book(h.rider(), from: RiverMap.south(1), to: RiverMap.south(8))
        let id = try #require(booked.string("id"))
        #expect(try h.status(of: id) == .dispatching)

        // A second coordinator on the same store stands for `cab serve` after a restart.
        let clock = h.clock
        let restarted = DispatchCoordinator(
            store: h.store, fleet: h.fleet,
            eta: RoadETAEstimator(routing: RoutingService(graph: RiverMap.graph(), index: nil)),
            tariff: .standard, configuration: .init(dispatch: dispatch), now: { clock.now() })
        let report = try restarted.recoverOpenTrips()
        #expect(report.redispatched == 1)
        clock.advance(seconds: Double(TripTimeouts().dispatchSeconds) + 1)
        restarted.tick()
        #expect(try h.status(of: id) == .noDriverFound)
    }
}
