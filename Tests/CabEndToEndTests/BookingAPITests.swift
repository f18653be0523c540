import CabTestSupport
import Foundation
import Testing

/// Accounts, estimates and bookings over a real `cab serve` on 127.0.0.1 with a real SQLite file (issue 5).
@Suite(.serialized) struct BookingAPITests {
    @Test func estimateBookReadListAndCancel() throws {
        let client = try BookingTestClient()
        let rider = try client.newRider("Aino")
        let estimate = try client.send(
            "POST", "/v1/estimates",
            json: ["pickup": BookingTestClient.railwayStation, "dropoff": BookingTestClient.esplanadi])
        #expect(estimate.status == 200, "\(estimate.text)")
        let estimated = try #require(estimate.jsonObject)

        let created = try client.book(rider)
        #expect(created.status == 201, "\(created.text)")
        let booking = try #require(created.jsonObject)
        let id = try #require(booking["id"] as? String)
        #expect(id.hasPrefix("bk_"))
        #expect(booking["status"] as? String == "dispatching")  // stored with dispatch's first step
        #expect(booking["qr"] as? String == "/v1/bookings/\(id)/qr.svg")
        #expect((booking["pin"] as? String)?.count == 4)
        #expect(booking["driver"] is NSNull && booking["cancellation"] is NSNull)
        let route = try #require(booking["route"] as? [String: Any])
        #expect(route["distance_m"] as? Int == estimated["distance_m"] as? Int)
        #expect(((route["geometry"] as? [String: Any])?["coordinates"] as? [[Double]])?.count ?? 0 > 2)
        let fare = try #require(booking["fare"] as? [String: Any])
        #expect(
            NSDictionary(dictionary: fare)
                == NSDictionary(dictionary: try #require(estimated["fare"] as? [String: Any])))
        #expect(created.headers["location"] == "/v1/bookings/\(id)")

        let read = try client.send("GET", "/v1/bookings/\(id)", token: rider)
        #expect(read.status == 200)
        #expect(read.jsonObject?["pin"] as? String == booking["pin"] as? String)
        let list = try client.send("GET", "/v1/bookings?status=requested,dispatching", token: rider)
        #expect((list.jsonObject?["bookings"] as? [[String: Any]])?.map { $0["id"] as? String } == [id])
        #expect(list.jsonObject?["next_cursor"] is NSNull)

        let cancelled = try client.send(
            "POST", "/v1/bookings/\(id)/cancel", token: rider, json: ["reason": "plans changed"])
        #expect(cancelled.status == 200, "\(cancelled.text)")
        let record = try #require(cancelled.jsonObject?["cancellation"] as? [String: Any])
        #expect(cancelled.jsonObject?["status"] as? String == "cancelled_by_rider")
        #expect(record["by"] as? String == "rider" && record["reason"] as? String == "plans changed")
        #expect((record["fee"] as? [String: Any])?["amount_minor"] as? Int == 0)
        #expect(record["at"] is String)

        let again = try client.send("POST", "/v1/bookings/\(id)/cancel", token: rider, json: ["reason": "again"])
        #expect(again.status == 200)
        #expect((again.jsonObject?["cancellation"] as? [String: Any])?["reason"] as? String == "plans changed")
        let requested = try client.send("GET", "/v1/bookings?status=requested", token: rider)
        #expect((requested.jsonObject?["bookings"] as? [Any])?.isEmpty == true)
    }

    @Test func theDefaultFareIsKilometresTimesOneTwentyEuro() throws {
        let client = try BookingTestClient()
        for dropoff in [BookingTestClient.esplanadi, BookingTestClient.kamppi] {
            let estimate = try client.send(
                "POST", "/v1/estimates", json: ["pickup": BookingTestClient.railwayStation, "dropoff": dropoff])
            let json = try #require(estimate.jsonObject)
            let meters = try #require(json["distance_m"] as? Int)
            let total = try #require((json["fare"] as? [String: Any])?["total"] as? [String: Any])
            #expect(total["currency"] as? String == "EUR")
            // km × 1.20 EUR in cents, rounded half up: meters × 120 / 1000.
            #expect(total["amount_minor"] as? Int == (meters * 120 + 500) / 1000, "\(json)")
            let from = "\(BookingTestClient.railwayStation["lat"]!),\(BookingTestClient.railwayStation["lon"]!)"
            let to = "\(dropoff["lat"]!),\(dropoff["lon"]!)"
            let route = try client.send("GET", "/v1/route?from=\(from)&to=\(to)")
            let routed = try #require(route.jsonObject?["distance_m"] as? Double)
            #expect(abs(routed - Double(meters)) <= 0.5)
        }
    }

    @Test func aRetryWithTheSameKeyReturnsTheSameBooking() throws {
        let client = try BookingTestClient()
        let rider = try client.newRider()
        let first = try client.book(rider, key: "key-1")
        let retry = try client.book(rider, key: "key-1")
        #expect(first.status == 201 && retry.status == 200)
        #expect(retry.jsonObject?["id"] as? String == first.jsonObject?["id"] as? String)
        let otherBody = try client.book(rider, key: "key-1", to: BookingTestClient.kamppi)
        #expect(otherBody.status == 422)
        #expect(otherBody.problemDetail?.contains("different request") == true, "\(otherBody.text)")
        #expect(try client.allBookingIDs().count == 1)
        // Keys belong to a rider: another rider's same key is a booking of their own.
        let other = try client.book(try client.newRider(), key: "key-1")
        #expect(other.status == 201)
        #expect(try client.allBookingIDs().count == 2)
    }

    @Test func ridersSeeOnlyTheirOwnBookings() throws {
        let client = try BookingTestClient()
        let alice = try client.newRider("Alice")
        let bob = try client.newRider("Bob")
        let id = try #require(try client.book(alice).jsonObject?["id"] as? String)
        for (method, path) in [
            ("GET", "/v1/bookings/\(id)"), ("GET", "/v1/bookings/\(id)/qr.svg"), ("GET", "/v1/bookings/\(id)/qr.png"),
            ("POST", "/v1/bookings/\(id)/cancel"),
        ] {
            let response = try client.send(
                method, path, token: bob, json: method == "POST" ? [:] as [String: Any] : nil)
            #expect(response.status == 404, "\(method) \(path): \(response.text)")
            #expect(response.problemDetail != nil)
        }
        #expect((try client.send("GET", "/v1/bookings", token: bob).jsonObject?["bookings"] as? [Any])?.isEmpty == true)
        // A driver with no offer or assignment does not see it either; a dispatcher does.
        let driver = try client.send(
            "POST", "/v1/drivers", json: ["name": "Dan", "vehicle": "white Toyota Prius", "plate": "ABC-123"])
        #expect(driver.status == 201)
        #expect(driver.jsonObject?["vehicle_type"] as? String == "standard")
        let driverToken = try #require(driver.jsonObject?["token"] as? String)
        #expect(try client.send("GET", "/v1/bookings/\(id)", token: driverToken).status == 404)
        #expect(try client.send("GET", "/v1/bookings/\(id)", token: client.dispatcherToken).status == 200)
        // Still open (dispatch may have moved it from requested to dispatching): Bob's cancel did nothing.
        let status = try client.send("GET", "/v1/bookings/\(id)", token: alice).jsonObject?["status"] as? String
        #expect(status == "requested" || status == "dispatching")
    }

    @Test(arguments: [nil, "", "rider_not-a-real-token"])
    func aWrongOrMissingTokenIs401(_ token: String?) throws {
        let client = try BookingTestClient()
        let headers = token.map { ["Authorization": "Bearer \($0)"] } ?? [:]
        for (method, path) in [
            ("GET", "/v1/bookings"), ("POST", "/v1/bookings"), ("GET", "/v1/bookings/bk_0000000000000000"),
        ] {
            let response = try client.send(
                method, path, json: method == "POST" ? ["pickup": BookingTestClient.railwayStation] : nil,
                headers: headers)
            #expect(response.status == 401, "\(method) \(path)")
            #expect(response.headers["www-authenticate"] == "Bearer")
            #expect(response.problemDetail?.isEmpty == false)
        }
        #expect(try client.allBookingIDs().isEmpty)
    }

    @Test func everyAcknowledgedBookingSurvivesSIGKILL() throws {
        let client = try BookingTestClient()
        let rider = try client.newRider()
        let responses = try ThreadTask.all(16) { i in
            try client.book(
                rider, key: "crash-\(i)",
                to: i.isMultiple(of: 2) ? BookingTestClient.esplanadi : BookingTestClient.kamppi)
        }
        let acknowledged = responses.filter { $0.status == 201 }.compactMap { $0.jsonObject?["id"] as? String }
        #expect(acknowledged.count == 16)
        let cancelledID = acknowledged[0]
        #expect(
            try client.send("POST", "/v1/bookings/\(cancelledID)/cancel", token: rider, json: ["reason": "x"]).status
                == 200)

        try client.crashAndRestart()
        #expect(Set(try client.allBookingIDs()) == Set(acknowledged))
        for id in acknowledged {
            let read = try client.send("GET", "/v1/bookings/\(id)", token: rider)
            #expect(read.status == 200)
            let status = read.jsonObject?["status"] as? String
            if id == cancelledID {
                #expect(status == "cancelled_by_rider")
            } else {
                #expect(
                    status == "requested" || status == "dispatching", "an open booking stays open: \(status ?? "nil")")
            }
        }
        // A retry after the crash still finds the first booking.
        let retry = try client.book(rider, key: "crash-1", to: BookingTestClient.kamppi)
        #expect(
            retry.status == 200 && retry.jsonObject?["id"] as? String == (responses[1].jsonObject?["id"] as? String))
    }

    /// The QR names the booking (the id before the dot) and carries the rider's secret after it.
    @Test func theQRCodeDecodesToTheBookingIDAndTheRidersSecret() throws {
        try #require(ZBar.isInstalled, "install zbar-tools")
        let client = try BookingTestClient()
        let rider = try client.newRider()
        let id = try #require(try client.book(rider).jsonObject?["id"] as? String)
        let svg = try client.send("GET", "/v1/bookings/\(id)/qr.svg", token: rider)
        #expect(svg.status == 200 && svg.headers["content-type"] == "image/svg+xml" && svg.text.hasPrefix("<svg"))
        let png = try client.send("GET", "/v1/bookings/\(id)/qr.png", token: rider)
        #expect(png.status == 200 && png.headers["content-type"] == "image/png")
        let file = client.data.appendingPathComponent("qr.png")
        try Data(png.body).write(to: file)
        let payload = try #require(try ZBar.decode(file))
        #expect(payload.hasPrefix(id + ".") && payload.count == id.count + 21, "\(payload)")
    }
}
