import CabAPI
import CabCore
import Dispatch
import Foundation
import Synchronization
import Testing

/// Every state against every trip event over the API, and the three races with exactly one winner.
@Suite struct TripRaceTests {
    /// A booking brought to `state` through the API, with its driver (offered or assigned), rider and PIN.
    struct Trip {
        var h: TripHarness
        var id: String
        var driver: TripHarness.Account
        var rider: TripHarness.Account
        var pin: String
    }

    static func trip(in state: TripState) throws -> Trip {
        let h = try TripHarness(dispatch: DispatchConfiguration(batchSize: 1, maximumBatches: 2))
        // 100 m from the pickup: near enough to mark the arrival (issue 13).
        let driver = h.driver(at: RiverMap.south(2), online: state != .noDriverFound)
        let rider = h.rider()
        let booked = h.book(rider, from: RiverMap.south(1), to: RiverMap.south(8))
        let trip = Trip(h: h, id: booked.string("id")!, driver: driver, rider: rider, pin: booked.string("pin")!)
        let dispatcher = TripHarness.Account(id: "", token: try h.dispatcherToken())
        func post(_ action: String, _ body: [String: Any]? = nil, as who: TripHarness.Account? = nil) {
            let a = h.call("POST", "/v1/trips/\(trip.id)/\(action)", token: (who ?? driver).token, body: body)
            precondition(a.status == 200, "\(action): \(a.json)")
        }
        let path: [TripState: [() -> Void]] = [
            .dispatching: [],
            .accepted: [{ post("accept") }],
            .arriving: [{ post("accept") }, { post("depart") }],
            .arrived: [{ post("accept") }, { post("arrived") }],
            .inProgress: [{ post("accept") }, { post("arrived") }, { post("start", ["code": trip.pin]) }],
            .completed: [
                { post("accept") }, { post("arrived") }, { post("start", ["code": trip.pin]) }, { post("complete") },
            ],
            .cancelledByRider: [
                { h.call("POST", "/v1/bookings/\(trip.id)/cancel", token: rider.token, body: ["reason": "x"]) }
            ],
            // A driver's cancel hands the trip back (issue 13); a dispatcher's ends it.
            .cancelledByDriver: [{ post("accept") }, { post("cancel", ["reason": "flat tyre"], as: dispatcher) }],
            .noDriverFound: [{ for _ in 0..<3 { h.advance(seconds: 10) } }],
        ]
        for step in try #require(path[state]) { step() }
        #expect(try h.status(of: trip.id) == state)
        return trip
    }

    /// The API calls of issue 7 and the table event each one causes (nil: decline, which changes no state).
    static let calls: [(name: String, event: TripEvent?)] = [
        ("accept", .accept), ("decline", nil), ("depart", .depart), ("arrived", .arrive), ("start", .start),
        ("complete", .complete), ("cancel", .redispatch), ("rider_cancel", .riderCancel), ("assign", .assign),
    ]

    static let states: [TripState] = [
        .dispatching, .accepted, .arriving, .arrived, .inProgress, .completed, .cancelledByRider, .cancelledByDriver,
        .noDriverFound,
    ]

    @Test(arguments: states)
    func everyEventInState(_ state: TripState) throws {
        for call in Self.calls {
            let t = try Self.trip(in: state)
            let answer: TripHarness.Answer
            switch call.name {
            case "rider_cancel":
                answer = t.h.call("POST", "/v1/bookings/\(t.id)/cancel", token: t.rider.token, body: ["reason": "x"])
            case "assign":
                let other = t.h.driver(at: RiverMap.south(5))
                answer = t.h.call(
                    "POST", "/v1/trips/\(t.id)/assign", token: try t.h.dispatcherToken(), body: ["driver_id": other.id])
            case "start":
                answer = t.h.call("POST", "/v1/trips/\(t.id)/start", token: t.driver.token, body: ["code": t.pin])
            case "cancel":
                answer = t.h.call("POST", "/v1/trips/\(t.id)/cancel", token: t.driver.token, body: ["reason": "x"])
            default:
                answer = t.h.call("POST", "/v1/trips/\(t.id)/\(call.name)", token: t.driver.token)
            }
            let allowed: Bool
            if let event = call.event {
                allowed = TripTransitionTable.standard.transition(from: state, on: event) != nil
            } else {
                allowed = state == .dispatching
            }
            let after = try t.h.status(of: t.id)
            let repeatedCancel = state == .cancelledByRider && call.event == .riderCancel
            if repeatedCancel {  // repeating the cancellation that ended it: 200, nothing changes, no second fee
                #expect(answer.status == 200 && after == state)
                #expect(try t.h.store.history(BookingID(t.id)!).filter { $0.to == state }.count == 1)
            } else if allowed {
                #expect(answer.status == 200, "\(call.name) in \(state): \(answer.json)")
                if let event = call.event, event == .redispatch {
                    // Handed back to dispatch, which may already have given up (nobody else is on the map).
                    let history = try t.h.store.history(BookingID(t.id)!)
                    #expect(history.contains { $0.from == state && $0.event == .redispatch && $0.to == .dispatching })
                    #expect(after == .dispatching || after == .noDriverFound, "\(call.name) in \(state)")
                } else if let event = call.event {
                    #expect(
                        after == TripTransitionTable.standard.transition(from: state, on: event)?.to,
                        "\(call.name) in \(state)")
                }
            } else {
                #expect(answer.status == 409, "\(call.name) in \(state): \(answer.status) \(answer.json)")
                #expect(after == state, "\(call.name) in \(state) changed the state")
                let history = try t.h.store.history(BookingID(t.id)!)
                #expect(history.last?.to == state)
            }
        }
    }

    /// Runs `a` and `b` at the same time on two threads; answers their statuses and the `current_state` of
    /// the problems (details are for people and name no states since issue 13).
    static func race(
        _ a: @escaping @Sendable () -> TripHarness.Answer, _ b: @escaping @Sendable () -> TripHarness.Answer
    )
        -> (Int, Int, String)
    {
        let results = Mutex<[Int: (Int, String)]>([:])
        DispatchQueue.concurrentPerform(iterations: 2) { i in
            let answer = i == 0 ? a() : b()
            let state = answer.json["current_state"] as? String ?? ""
            results.withLock { $0[i] = (answer.status, state) }
        }
        let r = results.withLock { $0 }
        return (r[0]!.0, r[1]!.0, r[0]!.1 + r[1]!.1)
    }

    @Test func twoDriversAcceptingTheSameTripHaveExactlyOneWinner() throws {
        for _ in 0..<10 {
            let h = try TripHarness(dispatch: DispatchConfiguration(batchSize: 2))
            let a = h.driver(at: RiverMap.south(2))
            let b = h.driver(at: RiverMap.south(3))
            let streams = try [a, b].map { try SSEReader(h.call("GET", "/v1/driver/stream", token: $0.token)) }
            let id = h.book(h.rider(), from: RiverMap.south(1), to: RiverMap.south(8)).string("id")!
            let (sa, sb, detail) = Self.race(
                { h.call("POST", "/v1/trips/\(id)/accept", token: a.token) },
                { h.call("POST", "/v1/trips/\(id)/accept", token: b.token) })
            #expect([sa, sb].sorted() == [200, 409])
            #expect(detail.contains("accepted"))
            let winner = sa == 200 ? 0 : 1
            #expect(streams[winner].read().map(\.event) == ["offer", "assigned"])
            #expect(streams[1 - winner].read().map(\.event) == ["offer", "cancelled"])  // the loser is told
            let history = try h.store.history(BookingID(id)!)
            #expect(history.filter { $0.event == .accept }.count == 1)
        }
    }

    @Test func acceptRacingARiderCancelEndsCancelledAndBothAreTold() throws {
        var outcomes: Set<Int> = []
        for _ in 0..<10 {
            let h = try TripHarness()
            let d = h.driver(at: RiverMap.south(2))
            let rider = h.rider()
            let stream = try SSEReader(h.call("GET", "/v1/driver/stream", token: d.token))
            let id = h.book(rider, from: RiverMap.south(1), to: RiverMap.south(8)).string("id")!
            let riderStream = try SSEReader(h.call("GET", "/v1/bookings/\(id)/stream", token: rider.token))
            let (accept, cancel, detail) = Self.race(
                { h.call("POST", "/v1/trips/\(id)/accept", token: d.token) },
                { h.call("POST", "/v1/bookings/\(id)/cancel", token: rider.token, body: ["reason": "late"]) })
            #expect(cancel == 200)
            #expect(try h.status(of: id) == .cancelledByRider)
            outcomes.insert(accept)
            let driverEvents = stream.read().map(\.event)
            if accept == 200 {
                #expect(driverEvents == ["offer", "assigned", "cancelled"])  // accepted, then told of the cancel
            } else {
                #expect(accept == 409 && detail.contains("cancelled_by_rider"))
                #expect(driverEvents == ["offer", "cancelled"])
            }
            #expect(riderStream.read().last?.data["status"] as? String == "cancelled_by_rider")
        }
        #expect(!outcomes.isEmpty)
    }

    @Test func aRiderCancelRacingStartAndCompleteHasExactlyOneWinner() throws {
        for _ in 0..<10 {
            let t = try Self.trip(in: .arrived)
            let h = t.h
            let (cancel, complete, detail) = Self.race(
                { h.call("POST", "/v1/bookings/\(t.id)/cancel", token: t.rider.token, body: ["reason": "x"]) },
                {
                    _ = h.call("POST", "/v1/trips/\(t.id)/start", token: t.driver.token, body: ["code": t.pin])
                    return h.call("POST", "/v1/trips/\(t.id)/complete", token: t.driver.token)
                })
            #expect([cancel, complete].sorted() == [200, 409])
            let final = try h.status(of: t.id)
            #expect(final == (cancel == 200 ? .cancelledByRider : .completed))
            // The losing cancel names the state it met: in_progress, or completed when it arrived after both.
            if cancel == 200 {
                #expect(detail.contains("cancelled_by_rider"))
            } else {
                #expect(detail.contains("in_progress") || detail.contains("completed"), "\(detail)")
            }
            let history = try h.store.history(BookingID(t.id)!)
            #expect(history.last?.to == final && history.filter { $0.to.isTerminal }.count == 1)
        }
    }
}
