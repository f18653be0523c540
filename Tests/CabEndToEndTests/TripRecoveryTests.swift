import Foundation
import Testing

import CabTestSupport

/// `cab serve` picks up the trips a stopped server left open (dispatch state lives in memory).
@Suite("Trip recovery after a restart")
struct TripRecoveryTests {
    @Test("a booking left dispatching is offered to a driver who comes online after a restart")
    func dispatchingBookingIsOfferedAfterRestart() throws {
        let client = try BookingTestClient()
        let rider = try client.newRider()
        let booked = try client.book(rider)
        #expect(booked.status == 201, "\(booked.text)")
        let trip = try #require(booked.jsonObject?["id"] as? String)

        #expect(client.server.stop() == 0)  // SIGTERM while nobody is online to take it
        try client.restart()

        // Whether the old server had moved it to dispatching or not, the new one dispatches it (not expired).
        let status = try client.send("GET", "/v1/bookings/\(trip)", token: rider)
        #expect(status.jsonObject?["status"] as? String == "dispatching", "\(status.text)")
        let created = try client.send(
            "POST", "/v1/drivers", json: ["name": "Night Driver", "vehicle": "Skoda Octavia", "plate": "ABC-123"])
        #expect(created.status == 201, "\(created.text)")
        let driver = try #require(created.jsonObject?["token"] as? String)

        // The driver's app: listen first, then go online and report a position next to the pickup.
        let stream = try HTTPTestConnection(port: client.server.port, timeoutSeconds: 60)
        try stream.sendRequest("GET", "/v1/driver/stream", headers: ["Authorization": "Bearer \(driver)"])
        #expect(try stream.readHead().status == 200)
        let online = try client.send("POST", "/v1/driver/status", token: driver, json: ["status": "online"])
        #expect(online.status == 200, "\(online.text)")
        let fix: [String: Any] = [
            "lat": 60.1701, "lon": 24.9386, "accuracy": 5,
            "time": ISO8601DateFormatter().string(from: Date()),
        ]
        let located = try client.send("POST", "/v1/driver/locations", token: driver, json: ["fixes": [fix]])
        #expect(located.jsonObject?["accepted"] as? Int == 1, "\(located.text)")

        // Dispatch, started again by the new server, offers the old booking at its next batch.
        var text = ""
        while !text.contains("event: offer") {
            guard let chunk = try stream.readChunk() else { break }
            text += String(decoding: chunk, as: UTF8.self)
        }
        #expect(text.contains("event: offer"))
        #expect(text.contains(trip), "the offer names the booking made before the restart: \(text)")
        let accepted = try client.send("POST", "/v1/trips/\(trip)/accept", token: driver)
        #expect(accepted.jsonObject?["status"] as? String == "accepted", "\(accepted.text)")
    }
}
