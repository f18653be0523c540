import CabAPI
import CabCore
import CabDispatch
import CabGeo
import CabStore
import CabTracking
import Foundation
import Testing

/// The server rules of issue 13 ("The journey as people live it"), over the API in process with a manual clock.
@Suite struct JourneyRuleTests {
    // MARK: 1. One open trip per driver, and no going offline with it

    @Test func aDriverWithAnOpenTripCannotGoOfflineUntilItIsOver() throws {
        let h = try TripHarness()
        let trip = try h.acceptedTrip()
        for step in ["accepted", "arrived", "in_progress"] {
            if step == "arrived" {
                #expect(h.call("POST", "/v1/trips/\(trip.id)/arrived", token: trip.driver.token).status == 200)
            }
            if step == "in_progress" {
                #expect(
                    h.call("POST", "/v1/trips/\(trip.id)/start", token: trip.driver.token, body: ["code": trip.pin])
                        .status == 200)
            }
            let offline = h.call("POST", "/v1/driver/status", token: trip.driver.token, body: ["status": "offline"])
            #expect(offline.status == 409, "\(step)")
            #expect(h.code(offline) == "trip_open")
            let detail = try #require(offline.string("detail"))
            #expect(
                detail.contains(String(trip.id.suffix(6))) && detail.contains("complete it or cancel it"), "\(detail)")
            #expect(!detail.contains("in_progress") && !detail.contains("arrived"), "\(detail)")
            #expect(h.dispatch.isOnline(DriverID(trip.driver.id)!))
        }
        h.clock.advance(seconds: 30)
        h.move(trip.driver, to: RiverMap.south(8))
        #expect(h.call("POST", "/v1/trips/\(trip.id)/complete", token: trip.driver.token).status == 200)
        #expect(
            h.call("POST", "/v1/driver/status", token: trip.driver.token, body: ["status": "offline"]).status == 200)
    }

    /// Issue 13: one driver on two trips. Neither the driver's accept nor a dispatcher's assign gives a second
    /// trip to a driver who holds one, and dispatch offers them nothing.
    @Test func aDriverNeverHoldsTwoOpenTrips() throws {
        let h = try TripHarness()
        let first = try h.acceptedTrip()
        let stream = try SSEReader(h.call("GET", "/v1/driver/stream", token: first.driver.token))
        _ = stream.read()
        // Going online again does not make the driver available; nor does a live index that says so (dispatch
        // checks the trips it follows, not only the index's status).
        #expect(
            h.call("POST", "/v1/driver/status", token: first.driver.token, body: ["status": "online"]).status == 200)
        h.fleet.setStatus(.available, for: DriverID(first.driver.id)!)
        let second = h.book(h.rider(), from: RiverMap.south(2), to: RiverMap.south(7))
        let secondID = try #require(second.string("id"))
        #expect(stream.read().filter { $0.event == "offer" }.isEmpty)
        let assigned = h.call(
            "POST", "/v1/trips/\(secondID)/assign", token: try h.dispatcherToken(), body: ["driver_id": first.driver.id]
        )
        #expect(assigned.status == 409 && h.code(assigned) == "driver_busy", "\(assigned.json)")
        #expect((assigned.string("detail") ?? "").contains(String(first.id.suffix(6))))
        #expect(try h.status(of: secondID) == .dispatching)
    }

    // MARK: 2. A driver's cancel hands the trip back

    @Test func aDriversCancelHandsTheTripBackAndAnotherDriverGetsIt() throws {
        let h = try TripHarness(dispatch: DispatchConfiguration(batchSize: 1))
        let a = h.driver(at: RiverMap.south(2))
        let b = h.driver(at: RiverMap.south(4))
        let streams = try [a, b].map { try SSEReader(h.call("GET", "/v1/driver/stream", token: $0.token)) }
        let rider = h.rider()
        let id = try #require(h.book(rider, from: RiverMap.south(1), to: RiverMap.south(8)).string("id"))
        let riderStream = try SSEReader(h.call("GET", "/v1/bookings/\(id)/stream", token: rider.token))
        #expect(streams[0].read().map(\.event) == ["offer"])
        #expect(h.call("POST", "/v1/trips/\(id)/accept", token: a.token).status == 200)
        _ = riderStream.read()
        _ = streams[0].read()

        let cancelled = h.call("POST", "/v1/trips/\(id)/cancel", token: a.token, body: ["reason": "flat tyre"])
        #expect(cancelled.status == 200 && cancelled.string("status") == "dispatching", "\(cancelled.json)")
        #expect(cancelled.json["redispatch_count"] as? Int == 1)
        let events = riderStream.read()
        #expect(events.map(\.event) == ["status", "redispatch"])
        #expect(events.first?.data["status"] as? String == "dispatching" && events.first?.data["driver"] == nil)
        #expect(
            events.last?.data["reason"] as? String == "driver_cancelled"
                && events.last?.data["trip_id"] as? String == id)
        let told = streams[0].read()
        #expect(told.map(\.event) == ["cancelled"] && told.first?.data["reason"] as? String == "driver_cancelled")
        #expect(streams[1].read().map(\.event) == ["offer"])  // dispatch ran again, without a

        #expect(h.call("POST", "/v1/trips/\(id)/accept", token: b.token).status == 200)
        let read = h.call("GET", "/v1/bookings/\(id)", token: rider.token)
        #expect((read.json["driver"] as? [String: Any])?["id"] as? String == b.id)
        #expect(read.json["redispatch_count"] as? Int == 1 && read.json["late"] as? Bool == false)
        // a may go offline: the trip is no longer theirs.
        #expect(h.call("POST", "/v1/driver/status", token: a.token, body: ["status": "offline"]).status == 200)
        let history = try h.store.history(BookingID(id)!)
        #expect(history.map(\.event) == [.book, .dispatch, .accept, .redispatch, .accept])
        #expect(history[3].reason == "driver_cancelled" && history[3].to == .dispatching)
        // The table says so.
        let table = h.call("GET", "/v1/trip-states")
        let rows = try #require(table.json["transitions"] as? [[String: Any]])
        #expect(rows.contains { $0["event"] as? String == "redispatch" && $0["from"] as? String == "arriving" })
    }

    /// With nobody else to offer it to, the handed-back trip ends `no_driver_found` and the rider's stream ends.
    @Test func aHandedBackTripWithNobodyElseEndsAndTheRidersStreamCloses() throws {
        let h = try TripHarness(
            dispatch: DispatchConfiguration(batchSize: 1, searchRadiiMeters: [3_000], maximumBatches: 1))
        let trip = try h.acceptedTrip()
        let riderStream = try SSEReader(h.call("GET", "/v1/bookings/\(trip.id)/stream", token: trip.rider.token))
        _ = riderStream.read()
        #expect(h.call("POST", "/v1/trips/\(trip.id)/cancel", token: trip.driver.token).status == 200)
        for _ in 0..<3 { h.advance(seconds: 10) }
        #expect(try h.status(of: trip.id) == .noDriverFound)
        let events = riderStream.read()
        #expect(events.map(\.event).prefix(2) == ["status", "redispatch"])
        #expect(events.last?.data["status"] as? String == "no_driver_found" && riderStream.ended)
    }

    // MARK: 3. An overdue pickup is re-dispatched

    @Test func anOverduePickupIsRedispatchedTheDriverReleasedAndTheTripCountsAsLate() throws {
        let table = TripTransitionTable(timeouts: TripTimeouts(pickupOverdueSeconds: 120))
        let h = try TripHarness(dispatch: DispatchConfiguration(batchSize: 1), table: table)
        let trip = try h.acceptedTrip(driverAt: RiverMap.south(4))
        let driverStream = try SSEReader(h.call("GET", "/v1/driver/stream", token: trip.driver.token))
        let riderStream = try SSEReader(h.call("GET", "/v1/bookings/\(trip.id)/stream", token: trip.rider.token))
        _ = riderStream.read()
        let booked = h.call("GET", "/v1/bookings/\(trip.id)", token: trip.rider.token)
        let promised = try #require((booked.json["promised_pickup_at"] as? String).flatMap(RFC3339.parse))
        #expect(booked.json["late"] as? Bool == false)
        let waited = Double(promised.milliseconds(since: h.clock.now())) / 1000

        h.advance(seconds: waited + 1)  // past the promise: late, not yet overdue
        #expect(h.call("GET", "/v1/bookings/\(trip.id)", token: trip.rider.token).json["late"] as? Bool == true)
        #expect(try h.status(of: trip.id) == .accepted)
        let other = h.driver(at: RiverMap.south(3))
        let otherStream = try SSEReader(h.call("GET", "/v1/driver/stream", token: other.token))
        h.advance(seconds: 118)
        #expect(try h.status(of: trip.id) == .accepted)
        h.move(other, to: RiverMap.south(3))
        h.advance(seconds: 1)  // promise + 120 s
        #expect(try h.status(of: trip.id) == .dispatching)
        let told = driverStream.read().filter { $0.event == "cancelled" }
        #expect(told.first?.data["reason"] as? String == "pickup_overdue")
        let riderEvents = riderStream.read()
        #expect(riderEvents.contains { $0.event == "redispatch" && $0.data["reason"] as? String == "pickup_overdue" })
        #expect(riderEvents.contains { $0.event == "status" && $0.data["status"] as? String == "dispatching" })
        #expect(otherStream.read().map(\.event) == ["offer"])
        // The first driver is released (may go offline) and is not offered the trip again.
        #expect(
            h.call("POST", "/v1/driver/status", token: trip.driver.token, body: ["status": "offline"]).status == 200)
        #expect(h.call("POST", "/v1/trips/\(trip.id)/accept", token: other.token).status == 200)
        let read = h.call("GET", "/v1/bookings/\(trip.id)", token: trip.rider.token)
        #expect(read.json["late"] as? Bool == true && read.json["redispatch_count"] as? Int == 1)
        // The dispatcher sees it, and the statistics do not call it on time.
        let dispatcher = try h.dispatcherToken()
        let open = h.call("GET", "/v1/trips", token: dispatcher, query: ["open": "true"])
        let row = try #require((open.json["trips"] as? [[String: Any]])?.first { $0["id"] as? String == trip.id })
        #expect(
            row["late"] as? Bool == true && row["redispatch_count"] as? Int == 1
                && row["short_id"] as? String == String(trip.id.suffix(6)))
        h.clock.advance(seconds: 30)
        h.move(other, to: RiverMap.south(1))
        #expect(h.call("POST", "/v1/trips/\(trip.id)/arrived", token: other.token).status == 200)
        #expect(
            h.call("POST", "/v1/trips/\(trip.id)/start", token: other.token, body: ["code": trip.pin]).status == 200)
        let stats = h.call("GET", "/v1/stats", token: dispatcher)
        #expect(stats.json["trips_picked_up"] as? Int == 1)
        #expect(stats.json["on_time"] as? Int == 0 && stats.json["on_time_share"] as? Double == 0)
        #expect(
            stats.json["late"] as? Int == 1 && stats.json["redispatched"] as? Int == 1
                && stats.json["redispatches"] as? Int == 1)
    }

    /// The overdue deadline is recovered after a restart: a trip whose margin ran out while the server was down
    /// is re-dispatched by the restarted coordinator.
    @Test func anOverduePickupIsRedispatchedAfterARestart() throws {
        let h = try TripHarness()
        let trip = try h.acceptedTrip(driverAt: RiverMap.south(4))
        let promised = try #require(try h.store.booking(BookingID(trip.id)!)?.promisedPickupAt)
        let clock = h.clock
        clock.advance(seconds: Double(promised.milliseconds(since: clock.now())) / 1000 + 601)
        let restarted = DispatchCoordinator(
            store: h.store, fleet: h.fleet,
            eta: RoadETAEstimator(routing: RoutingService(graph: RiverMap.graph(), index: nil)),
            tariff: .standard, now: { clock.now() })
        let report = try restarted.recoverOpenTrips()
        #expect(report.timedOut == 1)
        let history = try h.store.history(BookingID(trip.id)!)
        #expect(
            history.contains { $0.event == .redispatch && $0.reason == "pickup_overdue" && $0.actor.role == .system })
        let stored = try #require(try h.store.booking(BookingID(trip.id)!))
        #expect(stored.pickupOverdueAt != nil && stored.driverID == nil)
    }

    // MARK: 4. Arrival needs the driver at the pickup

    @Test func arrivalNeedsAFreshFixNearThePickupUnlessADispatcherOverrides() throws {
        let h = try TripHarness()
        let trip = try h.acceptedTrip(driverAt: RiverMap.south(5))  // 400 m from the pickup at s1
        let far = h.call("POST", "/v1/trips/\(trip.id)/arrived", token: trip.driver.token)
        #expect(far.status == 409 && h.code(far) == "too_far_from_pickup", "\(far.json)")
        #expect((far.string("detail") ?? "").hasPrefix("You are 400 m from the pickup;"), "\(far.json)")
        let dispatcher = try h.dispatcherToken()
        let byDesk = h.call("POST", "/v1/trips/\(trip.id)/arrived", token: dispatcher)
        #expect(byDesk.status == 409 && (byDesk.string("detail") ?? "").hasPrefix("The driver is 400 m"))
        h.move(trip.driver, to: RiverMap.point(x: 200, y: 10))  // 100 m and a bit away
        h.clock.advance(seconds: 61)
        let stale = h.call("POST", "/v1/trips/\(trip.id)/arrived", token: trip.driver.token)
        #expect(stale.status == 409 && h.code(stale) == "no_recent_position", "\(stale.json)")
        #expect(try h.status(of: trip.id) == .accepted)
        h.move(trip.driver, to: RiverMap.point(x: 200, y: 10))
        #expect(h.call("POST", "/v1/trips/\(trip.id)/arrived", token: trip.driver.token).status == 200)

        // A dispatcher's override marks it from anywhere.
        let other = try h.acceptedTrip(from: RiverMap.north(1), to: RiverMap.north(8), driverAt: RiverMap.north(6))
        let overridden = h.call("POST", "/v1/trips/\(other.id)/arrived", token: dispatcher, body: ["override": true])
        #expect(overridden.status == 200 && overridden.string("status") == "arrived", "\(overridden.json)")
        // A driver's "override" is ignored.
        let third = try h.acceptedTrip(from: RiverMap.north(2), to: RiverMap.north(9), driverAt: RiverMap.north(7))
        let cheat = h.call("POST", "/v1/trips/\(third.id)/arrived", token: third.driver.token, body: ["override": true])
        #expect(cheat.status == 409 && h.code(cheat) == "too_far_from_pickup")
    }

    // MARK: 5. Completion, receipts and the minimum fare

    @Test func completionCountsTheFixAtTheCompletionInstantAndGivesAReceipt() throws {
        let h = try TripHarness()
        let trip = try h.acceptedTrip()
        #expect(h.call("POST", "/v1/trips/\(trip.id)/arrived", token: trip.driver.token).status == 200)
        #expect(
            h.call("POST", "/v1/trips/\(trip.id)/start", token: trip.driver.token, body: ["code": trip.pin]).status
                == 200)
        for i in 2...8 {
            h.clock.advance(seconds: 10)
            h.move(trip.driver, to: RiverMap.south(i))
        }
        // The last fix and the completion share one instant: the last 100 m count.
        let done = h.call("POST", "/v1/trips/\(trip.id)/complete", token: trip.driver.token)
        #expect(done.status == 200)
        let receipt = try #require(done.json["receipt"] as? [String: Any])
        #expect(receipt["basis"] as? String == "trail")
        #expect(receipt["distance_m"] as? Int == 700 && receipt["duration_s"] as? Int == 70)
        let lines = try #require(receipt["lines"] as? [[String: Any]])
        #expect(lines.map { $0["label"] as? String } == ["Distance"])
        let total = (receipt["total"] as? [String: Any])?["amount_minor"] as? Int
        #expect(total == 84 && (lines.first?["amount"] as? [String: Any])?["amount_minor"] as? Int == 84)
        let points = try #require((receipt["trail_polyline"] as? String).flatMap { Polyline.decode($0) })
        #expect(points.count == 8)
        #expect(
            ((done.json["final_fare"] as? [String: Any])?["total"] as? [String: Any])?["amount_minor"] as? Int == 84)
        // Before completion there is no receipt.
        let other = try h.acceptedTrip(from: RiverMap.north(1), to: RiverMap.north(8))
        #expect(h.call("GET", "/v1/bookings/\(other.id)", token: other.rider.token).json["receipt"] is NSNull)
    }

    /// Issue 13: the fare was a quarter short when fixes still waited in a queue at completion. Fixes posted
    /// just before completing (still in the history writer's queue), one at the completion instant and one stamped
    /// 2 s ahead by the phone's clock all count.
    @Test func completionCountsQueuedFixesAndAPhoneClockRunningAhead() throws {
        let h = try TripHarness(withTracking: true)
        let trip = try h.acceptedTrip()
        #expect(h.call("POST", "/v1/trips/\(trip.id)/arrived", token: trip.driver.token).status == 200)
        #expect(
            h.call("POST", "/v1/trips/\(trip.id)/start", token: trip.driver.token, body: ["code": trip.pin]).status
                == 200)
        let start = h.clock.now()
        func fix(_ i: Int, at seconds: Int) -> [String: Any] {
            let p = RiverMap.south(i)
            return [
                "lat": p.latitude, "lon": p.longitude, "time": RFC3339.format(start.adding(seconds: seconds)),
                "accuracy": 5,
            ]
        }
        h.clock.advance(seconds: 60)
        // The driver stood at s1 at the start; then s2 ... s6 each 10 s apart, and s7 2 s after "now" (the phone
        // runs ahead).
        var fixes = (2...6).map { fix($0, at: ($0 - 1) * 10) }
        fixes.append(fix(7, at: 62))
        let posted = h.call("POST", "/v1/driver/locations", token: trip.driver.token, body: ["fixes": fixes])
        #expect(posted.json["accepted"] as? Int == 6, "\(posted.json)")
        let done = h.call("POST", "/v1/trips/\(trip.id)/complete", token: trip.driver.token)
        let receipt = try #require(done.json["receipt"] as? [String: Any])
        #expect(receipt["basis"] as? String == "trail" && receipt["distance_m"] as? Int == 600, "\(receipt)")
        #expect((receipt["total"] as? [String: Any])?["amount_minor"] as? Int == 72)
    }

    /// Issue 13: a trip completed without any fix cost 0.00 EUR; now the booked route prices it, and says so.
    @Test func withoutFixesTheFareFallsBackToTheBookedRoute() throws {
        let h = try TripHarness()
        let trip = try h.acceptedTrip()
        #expect(h.call("POST", "/v1/trips/\(trip.id)/arrived", token: trip.driver.token).status == 200)
        #expect(
            h.call("POST", "/v1/trips/\(trip.id)/start", token: trip.driver.token, body: ["code": trip.pin]).status
                == 200)
        h.clock.advance(seconds: 120)
        let done = h.call("POST", "/v1/trips/\(trip.id)/complete", token: trip.driver.token)
        let receipt = try #require(done.json["receipt"] as? [String: Any])
        let route = try #require(done.json["route"] as? [String: Any])
        #expect(receipt["basis"] as? String == "booked_route" && receipt["trail_polyline"] is NSNull)
        #expect(receipt["distance_m"] as? Int == route["distance_m"] as? Int)
        let charged = ((done.json["final_fare"] as? [String: Any])?["total"] as? [String: Any])?["amount_minor"] as? Int
        let estimate = ((done.json["fare"] as? [String: Any])?["total"] as? [String: Any])?["amount_minor"] as? Int
        #expect(charged == estimate && (charged ?? 0) > 0)
    }

    @Test func aMinimumFareTopsUpAShortTripAndTheReceiptShowsIt() throws {
        let tariff = try JSONDecoder().decode(
            Tariff.self, from: Data(#"{"currency": "EUR", "per_km": 120, "minimum": 500}"#.utf8))
        #expect(tariff.minimumFare == 500)
        let h = try TripHarness(tariff: tariff)
        let trip = try h.acceptedTrip()
        #expect(h.call("POST", "/v1/trips/\(trip.id)/arrived", token: trip.driver.token).status == 200)
        #expect(
            h.call("POST", "/v1/trips/\(trip.id)/start", token: trip.driver.token, body: ["code": trip.pin]).status
                == 200)
        h.clock.advance(seconds: 20)
        h.move(trip.driver, to: RiverMap.south(3))
        let done = h.call("POST", "/v1/trips/\(trip.id)/complete", token: trip.driver.token)
        let receipt = try #require(done.json["receipt"] as? [String: Any])
        let lines = try #require(receipt["lines"] as? [[String: Any]])
        #expect(lines.map { $0["label"] as? String } == ["Distance", "Minimum fare"])
        #expect(lines.compactMap { ($0["amount"] as? [String: Any])?["amount_minor"] as? Int } == [24, 476])
        #expect((receipt["total"] as? [String: Any])?["amount_minor"] as? Int == 500)
        // Both spellings are accepted, not both at once.
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(
                Tariff.self,
                from: Data(#"{"currency": "EUR", "per_km": 120, "minimum": 500, "minimum_fare": 400}"#.utf8))
        }
    }

    // MARK: 7. The ETA to the drop-off during the ride

    @Test func duringTheRideRiderAndLinkHearTheETAToTheDropoff() throws {
        let h = try TripHarness()
        let trip = try h.acceptedTrip(from: RiverMap.south(0), to: RiverMap.south(9))
        let token = try #require(
            h.call("POST", "/v1/bookings/\(trip.id)/share", token: trip.rider.token).string("token"))
        let rider = try SSEReader(h.call("GET", "/v1/bookings/\(trip.id)/stream", token: trip.rider.token))
        let link = try SSEReader(h.call("GET", "/v1/track/\(token)/stream"))
        #expect(h.call("POST", "/v1/trips/\(trip.id)/arrived", token: trip.driver.token).status == 200)
        h.dispatch.tick()
        #expect(rider.read().filter { $0.event == "dropoff_eta" }.isEmpty)  // not before the ride
        _ = link.read()
        #expect(
            h.call("POST", "/v1/trips/\(trip.id)/start", token: trip.driver.token, body: ["code": trip.pin]).status
                == 200)
        var etas: [Int] = []
        for i in 1...8 {
            h.clock.advance(seconds: 10)
            h.move(trip.driver, to: RiverMap.south(i))
            h.dispatch.tick()
            let got = rider.read().filter { $0.event == "dropoff_eta" }
            #expect(got.count == 1, "step \(i)")
            #expect(got.first?.data["trip_id"] as? String == trip.id)
            etas += got.compactMap { $0.data["eta_s"] as? Int }
        }
        #expect(etas == etas.sorted(by: >) && etas.first! > etas.last! && etas.last! < 30)
        #expect(link.read().filter { $0.event == "dropoff_eta" }.count == 8)
        #expect(h.call("GET", "/v1/track/\(token)").json["dropoff_eta_s"] as? Int == etas.last)
        #expect(rider.read().allSatisfy { $0.event != "eta" })
    }

    // MARK: 8. Ratings

    @Test func theRiderRatesACompletedTripOnceAndDispatchersSeeTheDriversAverage() throws {
        let h = try TripHarness()
        let trip = try h.acceptedTrip()
        let rate: (String, [String: Any]) -> TripHarness.Answer = { token, body in
            h.call("POST", "/v1/bookings/\(trip.id)/rating", token: token, body: body)
        }
        let early = rate(trip.rider.token, ["stars": 5])
        #expect(early.status == 409 && h.code(early) == "not_completed", "\(early.json)")
        #expect(h.call("POST", "/v1/trips/\(trip.id)/arrived", token: trip.driver.token).status == 200)
        #expect(
            h.call("POST", "/v1/trips/\(trip.id)/start", token: trip.driver.token, body: ["code": trip.pin]).status
                == 200)
        h.clock.advance(seconds: 30)
        h.move(trip.driver, to: RiverMap.south(4))
        #expect(h.call("POST", "/v1/trips/\(trip.id)/complete", token: trip.driver.token).status == 200)
        #expect(h.call("GET", "/v1/bookings/\(trip.id)", token: trip.rider.token).json["rating"] is NSNull)

        #expect(rate(h.rider().token, ["stars": 5]).status == 404)  // someone else's booking
        #expect(rate(trip.driver.token, ["stars": 5]).status == 403)
        for stars in [0, 6] {
            let bad = rate(trip.rider.token, ["stars": stars])
            #expect(bad.status == 422 && h.code(bad) == "invalid_rating", "\(bad.json)")
        }
        let rated = rate(trip.rider.token, ["stars": 4, "comment": " Smooth ride "])
        #expect(rated.status == 200, "\(rated.json)")
        let rating = try #require(rated.json["rating"] as? [String: Any])
        #expect(rating["stars"] as? Int == 4 && rating["comment"] as? String == "Smooth ride")
        let again = rate(trip.rider.token, ["stars": 1])
        #expect(again.status == 409 && h.code(again) == "already_rated")
        #expect(try h.store.booking(BookingID(trip.id)!)?.rating?.stars == 4)  // stored, not the second

        // A second trip by the same driver rated 5: the average is 4.5 over 2.
        let second = h.book(h.rider(), from: RiverMap.south(4), to: RiverMap.south(8))
        let secondID = try #require(second.string("id"))
        #expect(h.call("POST", "/v1/trips/\(secondID)/accept", token: trip.driver.token).status == 200)
        #expect(h.call("POST", "/v1/trips/\(secondID)/arrived", token: trip.driver.token).status == 200)
        let pin = try #require(second.string("pin"))
        #expect(
            h.call("POST", "/v1/trips/\(secondID)/start", token: trip.driver.token, body: ["code": pin]).status == 200)
        #expect(h.call("POST", "/v1/trips/\(secondID)/complete", token: trip.driver.token).status == 200)
        _ = try h.store.rate(BookingID(secondID)!, TripRating(stars: 5, comment: nil, at: h.clock.now()))
        let summary = try #require(try h.store.ratings(of: [DriverID(trip.driver.id)!])[DriverID(trip.driver.id)!])
        #expect(summary.average == 4.5 && summary.count == 2)
        #expect(try h.store.ratings(of: [DriverID(h.driver(at: RiverMap.south(6)).id)!]).isEmpty)
    }

    /// `GET /v1/drivers/nearby` (live tracking) gives each driver's average rating and count.
    @Test func nearbyDriversCarryTheirRating() throws {
        let f = try TrackingFixture()
        let rider = RiderID.random()
        let start = f.clock.now()
        try f.store.createRider(
            Rider(id: rider, name: "R2", createdAt: start), tokenHash: TokenAuthority.tokenHash("ri_x_rating"))
        var random = SystemRandomNumberGenerator()
        for (i, stars) in [4, 5, 5].enumerated() {
            var b = Booking(
                id: .timeOrdered(at: start.adding(seconds: i), using: &random), riderID: rider,
                pickup: Coordinate(latitude: 60.17, longitude: 24.94),
                dropoff: Coordinate(latitude: 60.16, longitude: 24.95),
                routeDistanceMeters: 1000, routeDurationSeconds: 120,
                fareEstimate: Money(minorUnits: 120, currency: .eur),
                pin: "1234", createdAt: start)
            // Stored as new (the store takes new bookings only) with a driver and a rating: the averages read
            // the ratings of the driver's bookings, whatever their state.
            b.driverID = f.driverA
            b.rating = try TripRating(stars: stars, comment: nil, at: start)
            _ = try f.store.create(b, idempotencyKey: nil, transitions: [])
        }
        #expect(try f.post([f.fix(60.170, 24.940)], token: f.tokenA).status == 200)
        #expect(try f.post([f.fix(60.171, 24.941)], token: f.tokenB).status == 200)
        let answer = try f.request("GET", "/v1/drivers/nearby?lat=60.17&lon=24.94", token: f.dispatcherToken)
        let drivers = try #require(answer.jsonObject?["drivers"] as? [[String: Any]])
        let a = try #require(drivers.first { $0["id"] as? String == f.driverA.rawValue })
        #expect(a["rating"] as? Double == 4.7 && a["ratings_count"] as? Int == 3)
        #expect(a["name"] as? String == "A" && a["position"] != nil)
        let b = try #require(drivers.first { $0["id"] as? String == f.driverB.rawValue })
        #expect(b["rating"] is NSNull && b["ratings_count"] as? Int == 0)
    }

    // MARK: 9. Nearby cars before booking

    @Test func ridersSeeNearbyAvailableCarsCoarselyAndWithoutIdentities() throws {
        let h = try TripHarness()
        let near = h.driver(at: RiverMap.south(3))
        h.clock.advance(seconds: 1)
        h.move(near, to: RiverMap.south(3), heading: 90)
        _ = h.driver(at: RiverMap.south(6))
        _ = h.driver(at: RiverMap.north(2), online: false)  // offline
        _ = h.driver(at: RiverMap.point(x: 5_000, y: 0))  // beyond 3 km
        let busy = try h.acceptedTrip(from: RiverMap.north(5), to: RiverMap.north(8))  // holds a trip
        let rider = h.rider()
        let point = RiverMap.south(1)
        let answer = h.call(
            "GET", "/v1/cars/nearby", token: rider.token,
            query: ["lat": "\(point.latitude)", "lon": "\(point.longitude)"])
        #expect(answer.status == 200, "\(answer.json)")
        let cars = try #require(answer.json["cars"] as? [[String: Any]])
        #expect(cars.count == 2)
        for car in cars {
            #expect(Set(car.keys) == ["lat", "lon", "heading"])
            let lat = try #require(car["lat"] as? Double)
            #expect(abs(lat * 1000 - (lat * 1000).rounded()) < 1e-6)
        }
        #expect(cars.contains { $0["heading"] as? Int == 90 })
        let text = String(decoding: try JSONSerialization.data(withJSONObject: answer.json), as: UTF8.self)
        #expect(!text.contains(near.id) && !text.contains(busy.driver.id) && !text.contains("Driver"))
        let eta = try #require(answer.json["nearest_eta_s"] as? Int)
        #expect(eta > 5 && eta < 120)  // 200 m by road
        let empty = h.call("GET", "/v1/cars/nearby", token: rider.token, query: ["lat": "60.30", "lon": "25.20"])
        #expect((empty.json["cars"] as? [Any])?.isEmpty == true && empty.json["nearest_eta_s"] is NSNull)
        #expect(
            h.call("GET", "/v1/cars/nearby", token: near.token, query: ["lat": "60.16", "lon": "24.90"]).status == 403)
    }

    // MARK: 10. Dispatchers act

    @Test func aDispatcherRedispatchesAnAcceptedTrip() throws {
        let h = try TripHarness()
        let trip = try h.acceptedTrip()
        let dispatcher = try h.dispatcherToken()
        let driverStream = try SSEReader(h.call("GET", "/v1/driver/stream", token: trip.driver.token))
        let riderStream = try SSEReader(h.call("GET", "/v1/bookings/\(trip.id)/stream", token: trip.rider.token))
        _ = riderStream.read()
        #expect(h.call("POST", "/v1/trips/\(trip.id)/redispatch", token: trip.driver.token).status == 403)
        let sent = h.call("POST", "/v1/trips/\(trip.id)/redispatch", token: dispatcher)
        #expect(sent.status == 200 && sent.json["redispatch_count"] as? Int == 1, "\(sent.json)")
        #expect(
            riderStream.read().contains { $0.event == "redispatch" && $0.data["reason"] as? String == "dispatcher" })
        #expect(
            driverStream.read().contains { $0.event == "cancelled" && $0.data["reason"] as? String == "dispatcher" })
        let history = try h.store.history(BookingID(trip.id)!)
        #expect(history.last?.event == .redispatch || history.dropLast().last?.event == .redispatch)
        let again = h.call("POST", "/v1/trips/\(trip.id)/redispatch", token: dispatcher)
        #expect(again.status == 409 && h.code(again) == "illegal_transition")
    }

    @Test(arguments: [TripState.dispatching, .accepted, .arriving, .arrived, .inProgress])
    func aDispatcherCancelsFromEveryOpenState(_ state: TripState) throws {
        let h = try TripHarness()
        let driver = h.driver(at: RiverMap.south(1))
        let rider = h.rider()
        let booked = h.book(rider, from: RiverMap.south(1), to: RiverMap.south(8))
        let id = try #require(booked.string("id"))
        let pin = try #require(booked.string("pin"))
        let steps: [(String, [String: Any]?)] = [
            ("accept", nil), ("depart", nil), ("arrived", nil), ("start", ["code": pin]),
        ]
        let wanted: [TripState: Int] = [.dispatching: 0, .accepted: 1, .arriving: 2, .arrived: 3, .inProgress: 4]
        var at = TripState.dispatching
        for (i, step) in steps.prefix(wanted[state]!).enumerated() {
            if state == .arrived && i == 1 { continue }  // straight from accepted to arrived
            let a = h.call("POST", "/v1/trips/\(id)/\(step.0)", token: driver.token, body: step.1)
            #expect(a.status == 200, "\(step.0): \(a.json)")
            at = try h.status(of: id)
        }
        #expect(at == state)
        let cancelled = h.call(
            "POST", "/v1/trips/\(id)/cancel", token: try h.dispatcherToken(), body: ["reason": "desk"])
        #expect(cancelled.status == 200, "\(cancelled.json)")
        let final = try h.status(of: id)
        #expect(final.isCancelled)
        #expect(h.call("GET", "/v1/bookings/\(id)", token: rider.token).json["cancellation"] is [String: Any])
        // The driver is free again.
        #expect(h.call("POST", "/v1/driver/status", token: driver.token, body: ["status": "offline"]).status == 200)
    }

    @Test func theDispatchersListShowsOpenTripsOnly() throws {
        let h = try TripHarness()
        let trip = try h.acceptedTrip(driverAt: RiverMap.south(3))
        h.clock.advance(seconds: 1)  // newest first (the promised pickup is still ahead)
        let waiting = try #require(h.book(h.rider(), from: RiverMap.north(1), to: RiverMap.north(8)).string("id"))
        let ended = try #require(h.book(h.rider(), from: RiverMap.north(2), to: RiverMap.north(7)).string("id"))
        let dispatcher = try h.dispatcherToken()
        #expect(h.call("POST", "/v1/trips/\(ended)/cancel", token: dispatcher).status == 200)
        #expect(h.call("GET", "/v1/trips", token: dispatcher).status == 400)
        #expect(h.call("GET", "/v1/trips", token: trip.rider.token, query: ["open": "true"]).status == 403)
        let list = h.call("GET", "/v1/trips", token: dispatcher, query: ["open": "true"])
        let rows = try #require(list.json["trips"] as? [[String: Any]])
        #expect(Set(rows.compactMap { $0["id"] as? String }) == [trip.id, waiting])
        let row = try #require(rows.first { $0["id"] as? String == trip.id })
        let keys: Set<String> = [
            "id", "short_id", "status", "pickup", "dropoff", "pickup_name", "dropoff_name", "driver", "created_at",
            "promised_pickup_at", "late", "redispatch_count",
        ]
        #expect(Set(row.keys) == keys)
        #expect(
            row["status"] as? String == "accepted"
                && (row["driver"] as? [String: Any])?["id"] as? String == trip.driver.id)
        #expect(rows.first { $0["id"] as? String == waiting }?["driver"] is NSNull)
        let newest = h.call("GET", "/v1/trips", token: dispatcher, query: ["open": "true", "limit": "1"])
        #expect((newest.json["trips"] as? [[String: Any]])?.compactMap { $0["id"] as? String } == [waiting])
        let stats = h.call("GET", "/v1/stats", token: dispatcher)
        #expect(stats.json["abandoned"] as? Int == 0 && stats.json["late"] as? Int == 0)
    }

    // MARK: 11. Words for people

    @Test func aRiderCancellingDuringTheRideIsToldWhyInTheirWords() throws {
        let h = try TripHarness()
        let trip = try h.acceptedTrip()
        #expect(h.call("POST", "/v1/trips/\(trip.id)/arrived", token: trip.driver.token).status == 200)
        #expect(
            h.call("POST", "/v1/trips/\(trip.id)/start", token: trip.driver.token, body: ["code": trip.pin]).status
                == 200)
        let refused = h.call("POST", "/v1/bookings/\(trip.id)/cancel", token: trip.rider.token, body: ["reason": "x"])
        #expect(refused.status == 409)
        #expect(h.code(refused) == "illegal_transition" && refused.string("current_state") == "in_progress")
        let detail = try #require(refused.string("detail"))
        #expect(detail.hasPrefix("Your ride has already started, so it can't be cancelled."), "\(detail)")
        #expect(!detail.contains("rider_cancel") && !detail.contains("in_progress") && !detail.contains("allowed from"))
        // Other refusals name no states either.
        let early = h.call("POST", "/v1/trips/\(trip.id)/arrived", token: trip.driver.token)
        #expect(early.status == 409 && !(early.string("detail") ?? "_").contains("_"), "\(early.json)")
    }
}
