import CabCore
import CabGeo
import Foundation
import Testing

/// `GET /v1/me`: whose token it is, so an app can sign in with a token it was given.
@Suite struct AccountEndpointTests {
    @Test func meNamesTheTokensAccountForEveryRole() throws {
        let h = try TripHarness()
        let rider = h.rider()
        let driver = h.driver(at: Coordinate(latitude: 60.17, longitude: 24.94))
        let desk = try h.dispatcherToken()

        let asRider = h.call("GET", "/v1/me", token: rider.token)
        #expect(asRider.status == 200)
        #expect(
            asRider.string("role") == "rider" && asRider.string("id") == rider.id && asRider.string("name") == "Rider")
        #expect(asRider.json["vehicle"] == nil && asRider.json["token"] == nil)

        let asDriver = h.call("GET", "/v1/me", token: driver.token)
        #expect(asDriver.string("role") == "driver" && asDriver.string("id") == driver.id)
        #expect(asDriver.string("vehicle") == "Toyota" && asDriver.string("plate") == "ABC-1")
        #expect(asDriver.string("vehicle_type") == "standard")

        let asDesk = h.call("GET", "/v1/me", token: desk)
        #expect(asDesk.string("role") == "dispatcher" && asDesk.string("name") == "Desk")

        #expect(h.call("GET", "/v1/me").status == 401)
        #expect(h.call("GET", "/v1/me", token: "rider_not-a-token").status == 401)
    }
}
