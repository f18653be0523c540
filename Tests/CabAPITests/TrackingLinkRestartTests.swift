import CabAPI
import CabCore
import CabDispatch
import CabRouting
import CabTracking
import Foundation
import Testing

@testable import CabHTTP

/// A shared tracking link is stored (issue 14): after a restart (a new trip service and API over the same store,
/// nothing kept in memory) the link still shows the trip.
@Suite struct TrackingLinkRestartTests {
    @Test func aSharedLinkWorksAfterARestart() throws {
        let h = try TripHarness()
        let trip = try h.acceptedTrip()
        let shared = h.call("POST", "/v1/bookings/\(trip.id)/share", token: trip.rider.token)
        #expect(shared.status == 201)
        let token = try #require(shared.string("token"))

        let clock = h.clock
        let routing = RoutingService(graph: RiverMap.graph(), index: nil)
        let restarted = DispatchCoordinator(
            store: h.store, fleet: LiveFleet(), eta: RoadETAEstimator(routing: routing), tariff: .standard,
            now: { clock.now() })
        var services = Services(routing: routing, store: h.store, now: { clock.now() })
        services.dispatch = restarted
        let app = CabApplication(
            configuration: APIConfiguration(publicDirectory: nil), services: services, metrics: MetricsRegistry())
        let router = app.makeRouter()
        guard case .found(let route, let parameters) = router.match(method: "GET", path: "/v1/track/\(token)") else {
            Issue.record("GET /v1/track/{token} is not routed")
            return
        }
        var request = HTTPRequest(method: "GET", path: "/v1/track/\(token)", query: [:], requestID: "test")
        request.pathParameters = parameters
        let response = try route.handler(request)
        #expect(response.status == 200)
        guard case .bytes(let bytes) = response.body else {
            Issue.record("the tracking answer has no body")
            return
        }
        let json = try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
        #expect(json["status"] as? String == "accepted")
        #expect(try restarted.links.booking(for: token) == BookingID(trip.id))
    }
}
