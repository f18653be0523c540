import CabAppModels
import CabClient
import CabGeo
import CabTestSupport
import Foundation
import Testing

/// The rider's model against a real `cab serve` on the Helsinki extract.
@MainActor
@Suite struct RiderModelTests {
    let server: LiveServer
    let location = ScriptedLocation()

    init() throws { server = try LiveServer() }

    func rider(_ service: some RiderService) -> RiderModel {
        RiderModel(
            service: service, location: location, riderName: "Aino",
            streamConfiguration: .init(reconnectDelay: .milliseconds(200)))
    }

    func here(_ point: Coordinate) -> LocationEvent {
        .sample(LocationSample(coordinate: point, time: Date(), accuracyMeters: 8))
    }

    /// Locates the rider at `pickup`, taps `dropoff`, and waits for the fare.
    func quote(_ model: RiderModel, from pickup: Coordinate, to dropoff: Coordinate) async throws {
        model.start()
        #expect(location.isRunning)
        location.send(here(pickup))
        #expect(!location.isRunning)  // one position is enough for the pickup
        model.mapTapped(at: dropoff)
        await model.settle()
        try #require(model.flow.phase == .quoted, "\(model.flow.error ?? "")")
    }

    @Test func aWholeTripFromLocatingToTheReceipt() async throws {
        let driver = SimulatedDriver(server)
        // On a road ~250 m from the pickup (a jump off the road would read as an impossible speed).
        let start = try server.road(from: Coordinate(latitude: 60.1712, longitude: 24.9412), to: Helsinki.station)[0]
        try await driver.comeOnline(at: start)

        let model = rider(server.client)
        #expect(model.flow.phase == .locating)
        try await quote(model, from: Helsinki.station, to: Helsinki.kamppi)
        let flow = model.flow
        #expect(flow.pickup?.name?.isEmpty == false)
        #expect(flow.dropoff?.name?.isEmpty == false)
        let estimate = try #require(flow.estimate)
        let expected = Int64((estimate.distanceMeters / 1000 * 120).rounded())
        #expect(abs(estimate.fare.total.amountMinor - expected) <= 1, "fare is km × 1.20 EUR")

        model.book()
        #expect(model.flow.phase == .booking)
        await model.settle()
        #expect(model.flow.phase == .lookingForDriver)
        #expect(model.riderToken != nil)
        let booking = try #require(model.flow.booking)
        let pin = try #require(booking.pin)
        // The QR code's text comes with the booking (the server signs the booking id); the phone draws it and
        // shows it with the PIN until pickup, and the driver starts the trip with what its camera reads.
        let code = try #require(model.flow.pickupCode)
        #expect(code.hasPrefix(booking.id + ".") && code != booking.id + ".")
        #expect(model.flow.showsPickupCode)

        #expect(await eventually { driver.model.shift.phase == .offered })
        #expect(driver.model.shift.offer?.tripID == booking.id)
        await driver.tap { $0.accept() }
        #expect(driver.model.shift.phase == .toPickup)
        #expect(await eventually { model.flow.phase == .driverOnTheWay })
        #expect(await eventually { model.flow.driver?.name == "Sam Driver" })

        await driver.drive(try server.road(from: start, to: booking.pickup), speed: 50)
        #expect(await eventually { model.flow.car != nil && model.flow.pickupETASeconds != nil })
        await driver.tap { $0.arrived() }
        #expect(driver.model.shift.phase == .atPickup, "\(driver.model.shift.error ?? "")")
        #expect(await eventually { model.flow.phase == .driverArrived })
        #expect(model.flow.pickupETASeconds == nil)  // no stale "arrives in 1 min"

        #expect(pin.count == 4)  // shown beside the QR code; the PIN path is the server's TripStartCodeTests
        await driver.tap { $0.start(code: code) }
        await driver.model.settle()
        #expect(driver.model.shift.phase == .riding, "\(driver.model.shift.error ?? "")")
        #expect(await eventually { model.flow.phase == .riding })
        #expect(model.flow.canCancel == false)
        #expect(!model.flow.showsPickupCode)

        await driver.drive(try server.road(from: booking.pickup, to: booking.dropoff), speed: 50)
        await driver.tap { $0.complete() }
        #expect(driver.model.shift.phase == .tripDone, "\(driver.model.shift.error ?? "")")
        #expect(await eventually { model.flow.phase == .finished })
        await model.settle()
        let receipt = try #require(model.flow.booking?.finalFare?.total)
        #expect(receipt.amountMinor > 0)
        #expect(receipt == driver.model.shift.fare)
        #expect(model.flow.driver == nil && model.flow.car == nil)  // the receipt, not the live trip
        model.rate(stars: 5)
        await model.settle()
        #expect(model.flow.stars == 5, "\(String(describing: model.flow.error))")
        let stored = try server.get("/v1/bookings/\(booking.id)", token: try #require(model.riderToken))
        #expect((stored["rating"] as? [String: Any])?["stars"] as? Int == 5)
    }

    @Test func locationDeniedLetsTheRiderTapThePickup() async throws {
        let model = rider(server.client)
        model.start()
        location.send(.denied)
        #expect(model.flow.phase == .locationDenied)
        #expect(model.flow.error?.contains("Tap the map to set your pickup") == true)
        model.mapTapped(at: Helsinki.station)
        #expect(model.flow.phase == .choosingDestination)
        #expect(model.flow.error == nil)
        await model.settle()
        #expect(model.flow.error == nil, "a server without GET /v1/cars/nearby is not an error")
        model.mapTapped(at: Helsinki.kamppi)
        await model.settle()
        #expect(model.flow.phase == .quoted)
        #expect(model.flow.pickup?.coordinate == Helsinki.station)
        #expect(model.flow.dropoff?.coordinate == Helsinki.kamppi)
        location.send(here(Helsinki.esplanadi))  // a late position does not move a tapped pickup
        #expect(model.flow.pickup?.coordinate == Helsinki.station)
    }

    @Test func searchLooksNearTheVisibleRegion() async throws {
        let model = rider(server.client)
        model.start()
        location.send(here(Helsinki.station))
        // Two regions about 1.1 km apart, both inside the extract: around Kamppi and around the harbour.
        let west = BoundingBox(
            southWest: Coordinate(latitude: 60.1665, longitude: 24.9280),
            northEast: Coordinate(latitude: 60.1715, longitude: 24.9360))
        let east = BoundingBox(
            southWest: Coordinate(latitude: 60.1645, longitude: 24.9480),
            northEast: Coordinate(latitude: 60.1695, longitude: 24.9560))
        var found: [[Place]] = []
        for region in [west, east] {
            model.regionChanged(to: region)
            model.search("Ravintola")
            await model.settle()
            try #require(!model.flow.searchResults.isEmpty, "\(model.flow.searchMessage ?? "")")
            found.append(model.flow.searchResults)
        }
        func meanDistance(_ places: [Place], to point: Coordinate) -> Double {
            places.map { $0.position.distanceMeters(to: point) }.reduce(0, +) / Double(places.count)
        }
        // Each search's results lie nearer the region shown than the other region.
        #expect(meanDistance(found[0], to: west.center) < meanDistance(found[0], to: east.center))
        #expect(meanDistance(found[1], to: east.center) < meanDistance(found[1], to: west.center))
        #expect(Set(found[0].map(\.name)) != Set(found[1].map(\.name)))

        model.search("Zzyzx Qwerty")
        await model.settle()
        #expect(model.flow.searchResults.isEmpty)
        #expect(model.flow.searchMessage?.hasPrefix("No places match") == true)

        model.search("Ravintola")
        await model.settle()
        let place = try #require(model.flow.searchResults.first)
        model.choose(place)
        await model.settle()
        #expect(model.flow.phase == .quoted)
        #expect(model.flow.dropoff?.name == place.name)
    }

    @Test func aTapOutsideTheMapIsExplainedNotShownAsCoordinates() async throws {
        let model = rider(server.client)
        model.start()
        location.send(here(Helsinki.station))
        model.mapTapped(at: Helsinki.offTheMap)
        await model.settle()
        #expect(model.flow.phase == .choosingDestination)
        #expect(model.flow.error == TripWords.outsideTheMap)
        #expect(model.flow.dropoff?.name == "Point on the map")
        #expect(model.flow.canBook == false)
        model.mapTapped(at: Helsinki.kamppi)  // a second tap inside the map recovers
        await model.settle()
        #expect(model.flow.phase == .quoted)
        #expect(model.flow.error == nil)
    }

    @Test func cancelBeforeAcceptanceIsFree() async throws {
        let model = rider(server.client)
        try await quote(model, from: Helsinki.station, to: Helsinki.kamppi)
        model.book()
        await model.settle()
        #expect(model.flow.canCancel)
        model.cancel()  // no driver yet: no question asked
        await model.settle()
        #expect(model.flow.phase == .ended)
        #expect(model.flow.notice == "Booking cancelled, free of charge.")
        let id = try #require(model.flow.booking?.id)
        let token = try #require(model.riderToken)
        #expect(try server.get("/v1/bookings/\(id)", token: token)["status"] as? String == "cancelled_by_rider")
    }

    @Test func aTripBookedBeforeTheAppClosedIsResumed() async throws {
        let first = rider(server.client)
        var open: [String?] = []
        first.onOpenBookingChanged = { open.append($0) }
        try await quote(first, from: Helsinki.station, to: Helsinki.kamppi)
        first.book()
        await first.settle()
        let id = try #require(first.flow.booking?.id)
        #expect(open == [id])
        first.stop()  // the app is closed

        let again = RiderModel(service: server.client, token: first.riderToken, location: ScriptedLocation())
        again.start()
        again.resume(bookingID: id)
        await again.settle()
        #expect(again.flow.phase == .lookingForDriver)
        #expect(again.flow.booking?.id == id)
        #expect(again.flow.dropoff?.coordinate == Helsinki.kamppi)
        again.cancel()
        await again.settle()
        #expect(again.flow.phase == .ended)

        let third = RiderModel(service: server.client, token: first.riderToken, location: ScriptedLocation())
        var forgotten: [String?] = []
        third.onOpenBookingChanged = { forgotten.append($0) }
        third.resume(bookingID: id)  // cancelled meanwhile: nothing to resume
        await third.settle()
        #expect(third.flow.booking == nil)
        #expect(forgotten == [nil])
    }

    @Test func cancelAfterAcceptanceAsksFirstAndIsRefusedInWordsOnceRiding() async throws {
        let driver = SimulatedDriver(server)
        try await driver.comeOnline(at: Helsinki.station)
        let model = rider(server.client)
        try await quote(model, from: Helsinki.station, to: Helsinki.kamppi)
        model.book()
        await model.settle()
        let booking = try #require(model.flow.booking)
        #expect(await eventually { driver.model.shift.phase == .offered })
        await driver.tap { $0.accept() }
        #expect(await eventually { model.flow.phase == .driverOnTheWay })

        model.cancel()
        #expect(model.flow.confirmingCancel)  // a driver is coming: a fee may apply, so ask
        model.keepBooking()
        #expect(!model.flow.confirmingCancel)
        #expect(model.flow.phase == .driverOnTheWay)

        await driver.tap { $0.arrived() }
        let pin = try #require(booking.pin)
        await driver.tap { $0.start(code: pin) }
        #expect(await eventually { model.flow.phase == .riding })
        model.cancel()
        await model.settle()
        #expect(model.flow.phase == .riding)
        #expect(model.flow.error?.hasPrefix("Your ride has started, so it can no longer be cancelled.") == true)
        let token = try #require(model.riderToken)
        #expect(try server.get("/v1/bookings/\(booking.id)", token: token)["status"] as? String == "in_progress")
    }

    @Test func aConfirmedCancelAfterAcceptanceCancelsAndTellsTheDriver() async throws {
        let driver = SimulatedDriver(server)
        try await driver.comeOnline(at: Helsinki.station)
        let model = rider(server.client)
        try await quote(model, from: Helsinki.station, to: Helsinki.kamppi)
        model.book()
        await model.settle()
        #expect(await eventually { driver.model.shift.phase == .offered })
        await driver.tap { $0.accept() }
        #expect(await eventually { model.flow.phase == .driverOnTheWay })
        model.cancel()
        model.confirmCancel()
        await model.settle()
        // Today's server lets a rider cancel until pickup (a fee may apply); a server that refuses it once a
        // driver accepted answers 409, which the rider reads in words, never as the server's state names.
        if model.flow.phase == .ended {
            #expect(model.flow.notice?.hasPrefix("Booking cancelled") == true)
            #expect(await eventually { driver.model.shift.phase == .waiting })
            #expect(driver.model.shift.notice == "The rider cancelled the trip.")
        } else {
            #expect(model.flow.phase == .driverOnTheWay)
            #expect(model.flow.error?.hasPrefix("This trip can no longer be cancelled") == true)
            #expect(model.flow.error?.contains("_") == false)
        }
    }

    @Test func anUnreachableServerIsSaidInWordsAndARetryBooksOnce() async throws {
        let service = FlakyRiderService(server.client)
        let model = rider(service)
        try await quote(model, from: Helsinki.station, to: Helsinki.kamppi)

        server.process.stop()  // the server goes away between the quote and Book Now
        model.book()
        await model.settle()
        #expect(model.flow.phase == .quoted)
        #expect(model.flow.error?.hasPrefix("SwiftCab could not reach the server to book the ride.") == true)
        #expect(model.flow.retryAction != nil)
        let key = try #require(model.flow.idempotencyKey)

        let again = try server.restarted()
        defer { again.process.stop() }
        service.pointAt(again.baseURL)
        service.loseNextBookingAnswer()  // this time the booking is made but its answer is lost
        model.retry()
        await model.settle()
        #expect(model.flow.phase == .quoted)
        #expect(model.flow.retryAction != nil)
        #expect(model.flow.idempotencyKey == key)

        model.retry()  // the same key: the server answers with the booking it already made
        await model.settle()
        #expect(model.flow.phase == .lookingForDriver)
        let token = try #require(model.riderToken)
        let listed = try again.get("/v1/bookings", token: token)["bookings"] as? [[String: Any]]
        #expect(listed?.count == 1)
        #expect(listed?.first?["id"] as? String == model.flow.booking?.id)
        model.stop()
    }
}
