import Testing

/// `DELETE /v1/me`: a signed-out token stops working at once, for every endpoint, and cannot sign out twice.
@Suite struct SignOutTests {
    @Test func aSignedOutTokenIsRefusedAtOnce() throws {
        let h = try TripHarness()
        let rider = h.rider()
        #expect(h.call("GET", "/v1/me", token: rider.token).status == 200)  // resolved once: now in the cache
        #expect(h.call("DELETE", "/v1/me", token: rider.token).status == 204)
        let me = h.call("GET", "/v1/me", token: rider.token)
        #expect(me.status == 401 && me.string("code") == "unauthorized")
        #expect(h.book(rider, from: RiverMap.south(0), to: RiverMap.south(9)).status == 401)
        #expect(h.call("DELETE", "/v1/me", token: rider.token).status == 401)
        #expect(h.call("DELETE", "/v1/me").status == 401)
        let other = h.rider()
        #expect(h.call("GET", "/v1/me", token: other.token).status == 200, "another rider is still signed in")
    }
}
