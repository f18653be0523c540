import CabAppModels
import CabClient
import CabGeo
import Foundation
import Testing

/// `RiderFlow` alone: events in, actions and words out, no server.
@Suite struct RiderFlowTests {
    static let here = Coordinate(latitude: 60.1699, longitude: 24.9384)
    static let there = Coordinate(latitude: 60.1655, longitude: 24.9466)
    static let fare = Fare(total: MoneyAmount(amountMinor: 120, currency: "EUR", display: "1.20 EUR"), lines: nil)

    static func booking(_ status: String, id: String = "bk_1") -> BookingSummary {
        BookingSummary(id: id, status: status, pickup: here, dropoff: there, fare: fare)
    }

    static func estimate(_ polyline: String? = nil) -> FareEstimate {
        let json =
            #"{"distance_m": 1000, "duration_s": 120, "fare": {"total": {"amount_minor": 120, "currency": "EUR"}}}"#
        var e = try! JSONDecoder().decode(FareEstimate.self, from: Data(json.utf8))  // a constant that decodes
        e.polyline = polyline
        return e
    }

    /// A flow that has booked `bk_1` and is in `status`.
    static func booked(_ status: String) -> RiderFlow {
        var flow = quoted()
        _ = flow.handle(.bookTapped(newKey: "key-1"))
        _ = flow.handle(.booked(booking("dispatching")))
        if status != "dispatching" { _ = flow.handle(.streamEvent(.status(status, driver: nil))) }
        return flow
    }

    static func quoted() -> RiderFlow {
        var flow = RiderFlow()
        _ = flow.handle(.started)
        _ = flow.handle(.location(.sample(LocationSample(coordinate: here, time: Date(), accuracyMeters: 5))))
        let actions = flow.handle(.mapTapped(there))
        guard case .estimate(_, _, let serial)? = actions.last else { preconditionFailure("no estimate: \(actions)") }
        _ = flow.handle(.estimated(estimate(), serial: serial))
        return flow
    }

    @Test func startingAgainKeepsThePickupAndTheBooking() {
        var flow = Self.quoted()
        #expect(flow.handle(.started).isEmpty)  // the view's task ran again: no "Finding where you are" forever
        #expect(flow.phase == .quoted)
        var booked = Self.booked("accepted")
        #expect(booked.handle(.started).isEmpty)
        #expect(booked.phase == .driverOnTheWay)
        var resumed = RiderFlow()
        _ = resumed.handle(.resumed(Self.booking("accepted")))
        #expect(resumed.handle(.started).isEmpty)
        #expect(resumed.phase == .driverOnTheWay)
        var denied = RiderFlow()
        _ = denied.handle(.started)
        _ = denied.handle(.location(.denied))
        #expect(denied.handle(.started) == [.startLocation])  // allowed in Settings since: try again
    }

    @Test func theQRCodeComesWithTheBookingAndIsShownUntilTheRiderIsOnBoard() {
        var flow = Self.quoted()
        _ = flow.handle(.bookTapped(newKey: "key-1"))
        var answer = Self.booking("dispatching")
        answer.qrCode = "bk_1.0123456789abcdef0123"
        _ = flow.handle(.booked(answer))
        #expect(flow.pickupCode == "bk_1.0123456789abcdef0123")
        #expect(flow.showsPickupCode)
        _ = flow.handle(.streamEvent(.status("arrived", driver: nil)))
        #expect(flow.showsPickupCode)
        _ = flow.handle(.streamEvent(.status("in_progress", driver: nil)))
        #expect(!flow.showsPickupCode)
        _ = flow.handle(.streamEvent(.status("completed", driver: nil)))
        _ = flow.handle(.newTrip)
        // The next trip never shows this one's code.
        #expect(flow.phase == .choosingDestination && flow.pickupCode == nil)
        var resumed = RiderFlow()
        var accepted = Self.booking("accepted")
        accepted.qrCode = "bk_1.fedcba9876543210fedc"
        _ = resumed.handle(.resumed(accepted))
        #expect(resumed.pickupCode == "bk_1.fedcba9876543210fedc" && resumed.showsPickupCode)
    }

    @Test func theScreenSaysTheQuoteDriverAndReceiptInWords() {
        var flow = Self.quoted()
        #expect(flow.pickupLine == "From the pickup (finding its address…)")
        #expect(flow.quote == RiderFlow.Quote(distance: "1.0 km", duration: "2 min", fare: "1.20 EUR"))
        #expect(!flow.canRetry)
        _ = flow.handle(.bookTapped(newKey: "key-1"))
        _ = flow.handle(.bookingFailed(message: "SwiftCab could not reach the server to book the ride."))
        #expect(flow.canRetry)
        _ = flow.retry()
        _ = flow.handle(.booked(Self.booking("dispatching")))
        _ = flow.handle(
            .streamEvent(.status("accepted", driver: DriverInfo(id: "dr_1", name: "Sam", plate: "ABC-123"))))
        #expect(flow.driverLine == "Sam · ABC-123")
        _ = flow.handle(.streamEvent(.pickupETA(170)))
        #expect(flow.pickupETALine == "Arrives in 3 min")
        _ = flow.handle(.streamEvent(.status("in_progress", driver: nil)))
        _ = flow.handle(.streamEvent(.dropoffETA(3700)))
        #expect(flow.dropoffETALine == "At your destination in 1 h 2 min")
        #expect(flow.receiptLines.isEmpty)  // not before the trip is over
        _ = flow.handle(.streamEvent(.status("completed", driver: nil)))
        var done = Self.booking("completed")
        done.finalFare = Fare(total: MoneyAmount(amountMinor: 305, currency: "EUR"))
        _ = flow.handle(.bookingRead(done))
        #expect(flow.receiptLines == [RiderFlow.ReceiptLine(label: "Fare", amount: "3.05 EUR")])
        #expect(!flow.isStarFilled(1))
        _ = flow.handle(.rated(stars: 4))
        #expect(flow.isStarFilled(4) && !flow.isStarFilled(5))
    }

    @Test(arguments: [
        ("dispatching", RiderFlow.Phase.lookingForDriver), ("accepted", .driverOnTheWay), ("arriving", .driverOnTheWay),
        ("arrived", .driverArrived), ("in_progress", .riding),
    ])
    func cancelIsImmediateBeforeAcceptanceAskedAfterAndRefusedWhileRiding(status: String, phase: RiderFlow.Phase) {
        var flow = Self.booked(status)
        #expect(flow.phase == phase)
        let actions = flow.handle(.cancelTapped)
        switch phase {
        case .lookingForDriver:
            #expect(actions == [.cancel(bookingID: "bk_1")])
        case .riding:
            #expect(actions.isEmpty)
            #expect(flow.error?.hasPrefix("Your ride has started") == true)
        default:
            #expect(actions.isEmpty)
            #expect(flow.confirmingCancel)
            #expect(flow.handle(.cancelConfirmed) == [.cancel(bookingID: "bk_1")])
        }
    }

    @Test func aRefusedCancelIsExplainedFromTheBookingsRealState() {
        var flow = Self.booked("arrived")
        _ = flow.handle(.cancelTapped)
        _ = flow.handle(.cancelConfirmed)
        #expect(
            flow.handle(.cancelFailed(status: 409, message: "Cannot rider_cancel a booking that is in_progress"))
                == [.readBooking(bookingID: "bk_1")])
        _ = flow.handle(.bookingRead(Self.booking("in_progress")))
        #expect(flow.phase == .riding)
        #expect(flow.error?.hasPrefix("Your ride has started, so it can no longer be cancelled.") == true)
        #expect(flow.error?.contains("rider_cancel") == false)
    }

    @Test func aStaleSearchOrEstimateAnswerIsIgnored() {
        var flow = Self.quoted()
        _ = flow.handle(.regionChanged(BoundingBox(southWest: Self.here, northEast: Self.there)))
        let first = flow.handle(.searchChanged("Kamp"))
        let second = flow.handle(.searchChanged("Kamppi"))
        guard case .search(_, _, let old)? = first.first, case .search(let query, _, let new)? = second.first else {
            Issue.record("no searches: \(first) \(second)")
            return
        }
        #expect(query == "Kamppi")
        _ = flow.handle(.searchAnswered([Place(name: "Kamppi", position: Self.there)], serial: new))
        _ = flow.handle(.searchAnswered([], serial: old))  // the older query answers last
        #expect(flow.searchResults.map(\.name) == ["Kamppi"])
        #expect(flow.searchMessage == nil)

        let moved = flow.handle(.mapTapped(Self.here))
        guard case .estimate(_, _, let serial)? = moved.last else { return }
        _ = flow.handle(.estimated(Self.estimate(), serial: serial - 1))
        #expect(flow.phase == .estimating)
    }

    @Test func aFailedBookingKeepsItsKeyForTheRetryAndANewRouteGetsANewOne() {
        var flow = Self.quoted()
        let actions = flow.handle(.bookTapped(newKey: "key-1"))
        #expect(actions.count == 1)
        _ = flow.handle(.bookingFailed(message: "SwiftCab could not reach the server to book the ride."))
        #expect(flow.phase == .quoted)
        #expect(flow.retry() == actions)
        _ = flow.handle(.bookingFailed(message: "again"))
        _ = flow.handle(.bookTapped(newKey: "key-2"))  // Book Now again: still the first key
        #expect(flow.idempotencyKey == "key-1")
        _ = flow.handle(.bookingFailed(message: "again"))
        _ = flow.handle(.mapTapped(Self.here))
        #expect(flow.idempotencyKey == nil)
    }

    @Test func aDriverWhoDropsOutLeavesNoStaleDriverCarOrETA() {
        var flow = Self.booked("accepted")
        _ = flow.handle(.streamEvent(.driver(DriverInfo(id: "dr_1", name: "Sam", vehicle: nil, plate: nil))))
        _ = flow.handle(.streamEvent(.position(Self.here, heading: 90)))
        _ = flow.handle(.streamEvent(.pickupETA(240)))
        _ = flow.handle(.streamEvent(.alert(kind: "arriving_5_min", message: "Your driver arrives in 4 minutes")))
        #expect(flow.driver?.name == "Sam" && flow.car != nil && flow.pickupETASeconds == 240 && flow.alert != nil)
        _ = flow.handle(.streamEvent(.status("dispatching", driver: nil)))
        #expect(flow.phase == .lookingForDriver)
        #expect(flow.driver == nil && flow.car == nil && flow.pickupETASeconds == nil && flow.alert == nil)
        #expect(flow.notice == "Your driver cancelled. SwiftCab is finding you another driver.")
    }

    @Test func arrivalClearsTheETAAndTheRideClearsTheAlert() {
        var flow = Self.booked("accepted")
        _ = flow.handle(.streamEvent(.pickupETA(60)))
        _ = flow.handle(.streamEvent(.status("arrived", driver: nil)))
        #expect(flow.pickupETASeconds == nil)
        #expect(flow.alert == "Your driver has arrived. Meet them at the pickup.")
        _ = flow.handle(.streamEvent(.pickupETA(30)))  // a late pickup ETA is not shown after arrival
        #expect(flow.pickupETASeconds == nil)
        _ = flow.handle(.streamEvent(.status("in_progress", driver: nil)))
        _ = flow.handle(.streamEvent(.dropoffETA(300)))
        #expect(flow.alert == nil && flow.dropoffETASeconds == 300)
        #expect(
            flow.handle(.streamEvent(.status("completed", driver: nil))) == [
                .stopFollowing, .readBooking(bookingID: "bk_1"),
            ])
        #expect(flow.phase == .finished)
    }

    @Test func theEndsOfATripWithoutARideSayWhatHappened() {
        for (status, words) in [
            ("no_driver_found", "No driver is free right now. Try booking again in a few minutes."),
            ("cancelled_by_driver", "Your driver cancelled the trip. You have not been charged."),
        ] {
            var flow = Self.booked("dispatching")
            #expect(flow.handle(.streamEvent(.status(status, driver: nil))) == [.stopFollowing])
            #expect(flow.phase == .ended)
            #expect(flow.notice == words)
            _ = flow.handle(.newTrip)
            #expect(flow.phase == .choosingDestination)
            #expect(flow.pickup?.coordinate == Self.here && flow.dropoff == nil && flow.booking == nil)
        }
    }

    @Test func theRouteToDrawIsTheEstimatesThenTheBookings() {
        var flow = Self.quoted()
        #expect(flow.route.isEmpty)
        flow = RiderFlow()
        _ = flow.handle(.mapTapped(Self.here))
        let actions = flow.handle(.mapTapped(Self.there))
        guard case .estimate(_, _, let serial)? = actions.last else { return }
        _ = flow.handle(.estimated(Self.estimate(Polyline.encode([Self.here, Self.there])), serial: serial))
        #expect(flow.route.count == 2)
        #expect(flow.route[1].distanceMeters(to: Self.there) < 2)
    }

    @Test func carsNearbyShowBeforeBookingAndOnlyForTheCurrentPickup() {
        var flow = RiderFlow()
        let actions = flow.handle(.mapTapped(Self.here))
        #expect(actions.contains(.lookUpCars(near: Self.here)))
        let car = NearbyCar(position: Self.there, heading: nil)
        _ = flow.handle(.carsNearby([car], near: Self.there))  // for a pickup since moved
        #expect(flow.nearbyCars.isEmpty)
        _ = flow.handle(.carsNearby([car], near: Self.here))
        #expect(flow.nearbyCars == [car])
        let estimate = flow.handle(.mapTapped(Self.there))
        guard case .estimate(_, _, let serial)? = estimate.last else { return }
        _ = flow.handle(.estimated(Self.estimate(), serial: serial))
        _ = flow.handle(.bookTapped(newKey: "k"))
        _ = flow.handle(.booked(Self.booking("dispatching")))
        #expect(flow.nearbyCars.isEmpty)
    }

    @Test func distancesAndDurationsReadAsWords() {
        #expect(TripWords.distance(meters: 846) == "850 m")
        #expect(TripWords.distance(meters: 1234) == "1.2 km")
        #expect(TripWords.duration(seconds: 20) == "1 min")
        #expect(TripWords.duration(seconds: 3900) == "1 h 5 min")
    }

    @Test func streamEventsDecodeAndUnknownOnesAreSkipped() {
        func decode(_ type: String, _ data: String) -> RiderStreamEvent? {
            RiderStreamEvent(ServerSentEvent(type: type, data: data))
        }
        #expect(
            decode("status", #"{"trip_id":"bk_1","status":"accepted","driver":{"id":"dr_1","name":"Sam"}}"#)
                == .status("accepted", driver: DriverInfo(id: "dr_1", name: "Sam", vehicle: nil, plate: nil)))
        #expect(
            decode("position", #"{"lat":60.1,"lon":24.9,"heading":90,"time":"2026-12-01T00:00:00Z"}"#)
                == .position(Coordinate(latitude: 60.1, longitude: 24.9), heading: 90))
        #expect(decode("eta", #"{"eta_s":61.6}"#) == .pickupETA(62))
        #expect(decode("dropoff_eta", #"{"eta_s":300}"#) == .dropoffETA(300))
        #expect(
            decode("alert", #"{"kind":"arriving_1_min","message":"Your driver arrives in 1 minute","threshold_s":60}"#)
                == .alert(kind: "arriving_1_min", message: "Your driver arrives in 1 minute"))
        #expect(decode("redispatch", "{}") == .redispatch(message: nil))
        #expect(decode("surge", "{}") == nil)
        #expect(decode("status", "not json") == nil)
    }

    @Test func serverProblemsBecomeWordsForPeople() {
        let network = ClientError(.network, "The server did not answer; check the connection.")
        #expect(
            TripWords.message(for: network, doing: "book the ride")
                == "SwiftCab could not reach the server to book the ride. Check your connection and try again.")
        let offMap = ServerProblem(status: 422, title: "No road nearby", detail: "No road within 500 m of 60.05,25.4")
            .error
        #expect(TripWords.message(for: offMap, doing: "find a route") == TripWords.outsideTheMap)
        let coded = ServerProblem(status: 422, code: "no_road_nearby", title: "Whatever", detail: "x").error
        #expect(TripWords.message(for: coded, doing: "find a route") == TripWords.outsideTheMap)
        let busy = ServerProblem(status: 503, title: "Store unavailable", detail: "try again").error
        #expect(
            TripWords.message(for: busy, doing: "book the ride") == "The server is busy. Wait a moment, then try again."
        )
    }
}
