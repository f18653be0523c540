import CabTestSupport
import Foundation
import Testing

/// The commands and documents around bookings: `cab admin create-dispatcher`, `cab serve --tariff`,
/// `GET /v1/trip-states`, `GET /openapi.json`.
@Suite(.serialized) struct BookingCommandTests {
    @Test func createDispatcherPrintsTheTokenAloneAndItSeesEveryBooking() throws {
        let client = try BookingTestClient()
        #expect(client.dispatcherToken.hasPrefix("dispatcher_"))
        #expect(!client.dispatcherToken.contains(" ") && !client.dispatcherToken.contains("\n"))
        let a = try #require(try client.book(try client.newRider("A")).jsonObject?["id"] as? String)
        let b = try #require(try client.book(try client.newRider("B")).jsonObject?["id"] as? String)
        #expect(Set(try client.allBookingIDs()) == [a, b])
        let read = try client.send("GET", "/v1/bookings/\(a)", token: client.dispatcherToken)
        #expect(read.status == 200 && (read.jsonObject?["pin"] as? String)?.count == 4)
        // A dispatcher may not book (only riders do).
        #expect(try client.book(client.dispatcherToken).status == 403)
    }

    @Test func createDispatcherRefusesBadArguments() throws {
        let missing = try CabProcess.run(["admin", "create-dispatcher", "--data", "/nonexistent/swiftcab", "Eve"])
        #expect(missing.status == 66 && missing.standardError.contains("no data directory"))
        #expect(missing.standardOutput.isEmpty)
        let noName = try CabProcess.run(["admin", "create-dispatcher", "--data", "/tmp"])
        #expect(noName.status == 64)
        let unknown = try CabProcess.run(["admin", "frobnicate"])
        #expect(unknown.status == 64 && unknown.standardError.contains("create-dispatcher"))
    }

    @Test func aTariffFileSetsTheFare() throws {
        let file = try TestData.temporaryDirectory("tariff").appendingPathComponent("tariff.json")
        try Data(#"{"currency": "EUR", "base_fare": 250, "per_km": 100, "booking_fee": 50}"#.utf8).write(to: file)
        let client = try BookingTestClient(extraArguments: ["--tariff", file.path])
        let estimate = try client.send(
            "POST", "/v1/estimates",
            json: ["pickup": BookingTestClient.railwayStation, "dropoff": BookingTestClient.esplanadi])
        let json = try #require(estimate.jsonObject)
        let meters = try #require(json["distance_m"] as? Int)
        let fare = try #require(json["fare"] as? [String: Any])
        #expect((fare["total"] as? [String: Any])?["amount_minor"] as? Int == 250 + (meters * 100 + 500) / 1000 + 50)
        #expect(
            (fare["lines"] as? [[String: Any]])?.compactMap { $0["label"] as? String } == [
                "base", "distance", "booking_fee",
            ])
    }

    @Test func anUnknownTariffCurrencyStopsTheServerWithAMessage() throws {
        let file = try TestData.temporaryDirectory("tariff").appendingPathComponent("tariff.json")
        try Data(#"{"currency": "XYZ", "per_km": 120}"#.utf8).write(to: file)
        let result = try CabProcess.run([
            "serve", "--data", try ImportedMap.dataDirectory().path, "--port", "0", "--tariff", file.path,
        ])
        #expect(result.status == 64)
        #expect(
            result.standardError.contains("XYZ") && result.standardError.contains("ISO 4217"), "\(result.standardError)"
        )
    }

    @Test func servesTheTripStateTableAndTheOpenAPIDocument() throws {
        let client = try BookingTestClient(extraArguments: [
            "--public", TestData.repositoryRoot.appendingPathComponent("Public").path,
        ])
        let table = try client.send("GET", "/v1/trip-states")
        #expect(table.status == 200)
        let transitions = try #require(table.jsonObject?["transitions"] as? [[String: Any]])
        let riderCancels = transitions.filter { $0["event"] as? String == "rider_cancel" }.compactMap {
            $0["from"] as? String
        }
        #expect(Set(riderCancels) == ["requested", "dispatching", "accepted", "arriving", "arrived"])
        let openapi = try client.send("GET", "/openapi.json")
        #expect(openapi.status == 200)
        #expect(openapi.jsonObject?["openapi"] as? String == "3.1.0")
        #expect((openapi.jsonObject?["paths"] as? [String: Any])?["/v1/bookings/{id}/cancel"] != nil)
    }
}
