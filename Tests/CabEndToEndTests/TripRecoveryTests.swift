import CabTestSupport
import Foundation
import Testing

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
            "time": Date().formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true)),
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

    /// A driver's app: the driver stream opened first, then online with a fix next to the pickup.
    private func onlineDriver(_ client: BookingTestClient, token: String, streamTimeoutSeconds: Int) throws
        -> HTTPTestConnection
    {
        let stream = try HTTPTestConnection(port: client.server.port, timeoutSeconds: streamTimeoutSeconds)
        try stream.sendRequest("GET", "/v1/driver/stream", headers: ["Authorization": "Bearer \(token)"])
        #expect(try stream.readHead().status == 200)
        let online = try client.send("POST", "/v1/driver/status", token: token, json: ["status": "online"])
        #expect(online.status == 200, "\(online.text)")
        let fix: [String: Any] = [
            "lat": 60.1701, "lon": 24.9386, "accuracy": 5,
            "time": Date().formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true)),
        ]
        let located = try client.send("POST", "/v1/driver/locations", token: token, json: ["fixes": [fix]])
        #expect(located.jsonObject?["accepted"] as? Int == 1, "\(located.text)")
        return stream
    }

    /// Reads `stream` until an offer naming `trip` arrives (true) or the stream ends or times out (false).
    private func waitForOffer(of trip: String, on stream: HTTPTestConnection) -> Bool {
        var text = ""
        while true {
            guard let chunk = try? stream.readChunk() else { return false }
            text += String(decoding: chunk, as: UTF8.self)
            if text.contains("event: offer"), text.contains(trip) { return true }
        }
    }

    @Test("a driver who declined is not offered the trip again after a restart; another driver is")
    func declinesSurviveARestart() throws {
        let client = try BookingTestClient()
        let rider = try client.newRider()
        func newDriver(_ name: String) throws -> String {
            let created = try client.send(
                "POST", "/v1/drivers", json: ["name": name, "vehicle": "Skoda Octavia", "plate": "ABC-123"])
            #expect(created.status == 201, "\(created.text)")
            return try #require(created.jsonObject?["token"] as? String)
        }
        let aino = try newDriver("Aino")
        let stream = try onlineDriver(client, token: aino, streamTimeoutSeconds: 60)
        let booked = try client.book(rider)
        #expect(booked.status == 201, "\(booked.text)")
        let trip = try #require(booked.jsonObject?["id"] as? String)
        #expect(waitForOffer(of: trip, on: stream))
        let declined = try client.send("POST", "/v1/trips/\(trip)/decline", token: aino)
        #expect(declined.status == 200, "\(declined.text)")

        #expect(client.server.stop() == 0)
        try client.restart()

        // Both drivers online after the restart, next to the pickup: a batch holds up to three drivers, so if
        // the decline were forgotten Aino would get the offer in the same batch as Onni.
        let ainoAgain = try onlineDriver(client, token: aino, streamTimeoutSeconds: 3)
        let onni = try newDriver("Onni")
        let onniStream = try onlineDriver(client, token: onni, streamTimeoutSeconds: 60)
        #expect(waitForOffer(of: trip, on: onniStream), "the trip is dispatched again after the restart")
        #expect(!waitForOffer(of: trip, on: ainoAgain), "Aino declined before the restart and is not asked again")
    }
}
