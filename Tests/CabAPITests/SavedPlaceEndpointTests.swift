import CabCore
import CabGeo
import Foundation
import Testing

/// `GET /v1/me/places`, `PUT` and `DELETE /v1/me/places/{label}`: a rider's saved places and recent
/// destinations, offered before they type.
@Suite struct SavedPlaceEndpointTests {
    func body(_ name: String, _ at: Coordinate, address: String? = nil) -> [String: Any] {
        var body: [String: Any] = ["name": name, "position": ["lat": at.latitude, "lon": at.longitude]]
        if let address { body["address"] = address }
        return body
    }

    @Test func saveListReplaceAndDelete() throws {
        let h = try TripHarness()
        let rider = h.rider()
        let home = RiverMap.north(2)
        let work = RiverMap.south(7)
        let created = h.call("PUT", "/v1/me/places/Work", token: rider.token, body: body("Office", work))
        #expect(created.status == 201)
        #expect(created.string("label") == "Work" && created.string("name") == "Office")
        #expect(
            h.call(
                "PUT", "/v1/me/places/Home", token: rider.token, body: body("Kotikatu 5", home, address: "Kotikatu 5")
            ).status == 201)
        let replaced = h.call("PUT", "/v1/me/places/home", token: rider.token, body: body("Kotikatu 7", home))
        #expect(replaced.status == 200)

        let listed = h.call("GET", "/v1/me/places", token: rider.token)
        #expect(listed.status == 200)
        let saved = listed.json["saved"] as? [[String: Any]] ?? []
        #expect(saved.map { $0["label"] as? String } == ["home", "Work"])
        #expect(saved.first?["name"] as? String == "Kotikatu 7")
        let position = saved.first?["position"] as? [String: Double]
        #expect(position?["lat"] == home.latitude && position?["lon"] == home.longitude)
        #expect((listed.json["recent"] as? [Any])?.isEmpty == true)

        #expect(h.call("DELETE", "/v1/me/places/WORK", token: rider.token).status == 204)
        #expect(h.call("DELETE", "/v1/me/places/Work", token: rider.token).status == 404)
        let after = h.call("GET", "/v1/me/places", token: rider.token).json["saved"] as? [[String: Any]] ?? []
        #expect(after.count == 1)
    }

    @Test func recentDestinationsComeFromTheRidersBookings() throws {
        let h = try TripHarness()
        let rider = h.rider()
        let other = h.rider()
        let pickup = RiverMap.north(0)
        for (i, name) in ["Bridge end", "South bank"].enumerated() {
            let dropoff = i == 0 ? RiverMap.north(9) : RiverMap.south(5)
            let booked = h.call(
                "POST", "/v1/bookings", token: rider.token,
                body: [
                    "pickup": ["lat": pickup.latitude, "lon": pickup.longitude],
                    "dropoff": ["lat": dropoff.latitude, "lon": dropoff.longitude], "dropoff_name": name,
                ])
            #expect(booked.status == 201)
            h.clock.advance(seconds: 60)
        }
        let recent = h.call("GET", "/v1/me/places", token: rider.token).json["recent"] as? [[String: Any]] ?? []
        #expect(recent.map { $0["name"] as? String } == ["South bank", "Bridge end"])
        #expect(recent.first?["booked_at"] is String)
        let others = h.call("GET", "/v1/me/places", token: other.token).json["recent"] as? [Any]
        #expect(others?.isEmpty == true)
    }

    @Test func onlyASignedInRiderHasPlacesAndBadInputSaysWhatToFix() throws {
        let h = try TripHarness()
        let rider = h.rider()
        let driver = h.driver(at: RiverMap.north(1))
        #expect(h.call("GET", "/v1/me/places").status == 401)
        #expect(h.call("GET", "/v1/me/places", token: driver.token).status == 403)
        #expect(
            h.call("PUT", "/v1/me/places/Home", token: driver.token, body: body("x", RiverMap.north(1))).status == 403)
        let noName = h.call(
            "PUT", "/v1/me/places/Home", token: rider.token, body: ["position": ["lat": 60.1, "lon": 24.9]])
        #expect(noName.status == 400)
        let farOff = h.call(
            "PUT", "/v1/me/places/Home", token: rider.token, body: body("x", Coordinate(latitude: 95, longitude: 0)))
        #expect(farOff.status == 400)
        let longLabel = String(repeating: "a", count: 41)
        let tooLong = h.call(
            "PUT", "/v1/me/places/\(longLabel)", token: rider.token, body: body("x", RiverMap.north(1)))
        #expect(tooLong.status == 400)
        #expect((tooLong.json["detail"] as? String)?.contains("label") == true)
    }
}
