import CabAppModels
import CabClient
import CabGeo
import CabTestSupport
import Foundation
import Testing

/// The driver's model against a real `cab serve` on the Helsinki extract.
@MainActor
@Suite struct DriverModelTests {
    let server: LiveServer

    init() throws { server = try LiveServer() }

    /// The trail the server stored for the driver, oldest first, once it holds `count` points (the history
    /// writer commits up to half a second after an upload) or after 15 s.
    func trail(_ driver: SimulatedDriver, from: Date, count: Int) async throws -> [Coordinate] {
        var points = try trail(driver, from: from)
        let deadline = Date().addingTimeInterval(15)
        while points.count < count, Date() < deadline {
            try await Task.sleep(for: .milliseconds(100))
            points = try trail(driver, from: from)
        }
        return points
    }

    func trail(_ driver: SimulatedDriver, from: Date) throws -> [Coordinate] {
        let token = try #require(driver.model.token)
        let id = try #require(driver.model.shift.account?.id)
        let fromText = from.addingTimeInterval(-1).formatted(Date.ISO8601FormatStyle())
        let toText = Date().addingTimeInterval(60).formatted(Date.ISO8601FormatStyle())
        let feature = try server.get("/v1/drivers/\(id)/trail?from=\(fromText)&to=\(toText)", token: token)
        let properties = try (feature["properties"] as? [String: Any]).orThrow("no properties: \(feature)")
        let coordinates = (properties["coordinates"] as? [[Double]]) ?? []
        return coordinates.map { Coordinate(latitude: $0[1], longitude: $0[0]) }
    }

    /// The same positions in the same order (the server stores 7 decimals: centimetres).
    func same(_ a: [Coordinate], _ b: [Coordinate]) -> Bool {
        a.count == b.count && zip(a, b).allSatisfy { $0.distanceMeters(to: $1) < 0.5 }
    }

    @Test func the20MetreFilterAnd20SecondThrottleOnAScriptedRoute() async throws {
        let start = Date().addingTimeInterval(-15 * 60)  // a drive a quarter of an hour ago: no waiting here
        let driver = SimulatedDriver(server, clockStart: start)
        try await driver.comeOnline(at: Helsinki.station)
        let road = try server.road(from: Helsinki.station, to: Helsinki.esplanadi)
        let samples = ScriptedRoute(points: road).samples(
            speed: 10, step: 1, start: driver.clock.date.addingTimeInterval(1))
        #expect(samples.count > 80)
        for sample in samples {
            driver.send(sample)
            driver.model.tick()
            await driver.model.settle()
        }
        let uploads = try #require(driver.transport.made).uploads
        let gaps = zip(uploads, uploads.dropFirst()).map { $1.at.timeIntervalSince($0.at) }
        #expect(gaps.allSatisfy { $0 >= 20 }, "at most one upload per 20 s: \(gaps)")
        #expect(uploads.count >= samples.count / 20 - 1)
        let kept = uploads.flatMap(\.fixes)
        let steps = zip(kept, kept.dropFirst()).map { $0.sample.coordinate.distanceMeters(to: $1.sample.coordinate) }
        #expect(steps.allSatisfy { $0 >= 20 }, "every kept fix is 20 m from the last")
        #expect(kept.count < samples.count * 2 / 3, "one-second positions 10 m apart are thinned")
        #expect(kept.map(\.sequence) == Array(1...Int64(kept.count)))
        let stored = try await trail(driver, from: start, count: kept.count)
        let dropped = try #require(driver.transport.made).dropped
        #expect(dropped.isEmpty, "\(dropped)")
        #expect(same(stored, kept.map(\.sample.coordinate)), "the server stored what was sent")
    }

    @Test func offlineFixesAreBufferedAndUploadedOldestFirst() async throws {
        let start = Date().addingTimeInterval(-15 * 60)
        let driver = SimulatedDriver(server, clockStart: start)
        try await driver.comeOnline(at: Helsinki.station)
        let transport = try #require(driver.transport.made)
        transport.offline = true
        let road = try server.road(from: Helsinki.station, to: Helsinki.esplanadi)
        for sample in ScriptedRoute(points: road).samples(
            speed: 10, step: 3, start: driver.clock.date.addingTimeInterval(3))
        {
            driver.send(sample)
            driver.model.tick()
            await driver.model.settle()
        }
        let queued = driver.model.queuedFixes
        #expect(queued > 20)
        #expect(transport.uploads.count == 1)  // only the first fix, sent before the network went
        transport.offline = false
        driver.model.networkBecameAvailable()
        await driver.model.settle()
        #expect(driver.model.queuedFixes == 0)
        let sent = transport.uploads.dropFirst().flatMap(\.fixes)
        #expect(sent.count == queued)
        #expect(sent.map(\.sequence) == Array(2...Int64(queued + 1)), "oldest first")
        let uploaded = transport.uploads.flatMap(\.fixes).map(\.sample.coordinate)
        #expect(same(try await trail(driver, from: start, count: uploaded.count), uploaded))
    }

    @Test func everyFixIsSentBeforeCompleteSoTheFareIsTheDrivenDistance() async throws {
        let driver = SimulatedDriver(server)
        let road = try server.road(from: Helsinki.kamppi, to: Helsinki.esplanadi)
        try await driver.comeOnline(at: road[0])  // on the road, where the ride starts
        let rider = try await server.client.createRider(name: "Rider")
        let booking = try await server.client.authenticated(rider.token).book(
            from: road[0], to: road[road.count - 1], idempotencyKey: "fare-trip")
        #expect(await eventually { driver.model.shift.phase == .offered })
        await driver.tap { $0.accept() }
        // Standing at the pickup the phone still reports; "I have arrived" sends that position first, so the
        // 20 s throttle window starts here and the ride's fixes are still queued at Complete.
        driver.send(LocationSample(coordinate: road[0], time: Date(), accuracyMeters: 5, speedMetersPerSecond: 0))
        await driver.tap { $0.arrived() }
        let pin = try #require(booking.pin)
        await driver.tap { $0.start(code: pin) }
        await driver.model.settle()
        #expect(driver.model.shift.phase == .riding, "\(driver.model.shift.error ?? "")")

        let ride = await driver.drive(road, speed: 60)
        #expect(driver.model.queuedFixes > 0, "the 20 s throttle still holds fixes when Complete is tapped")
        await driver.tap { $0.complete() }
        #expect(driver.model.shift.phase == .tripDone, "\(driver.model.shift.error ?? "")")
        #expect(driver.model.queuedFixes == 0)
        let fare = try #require(driver.model.shift.fare)
        let driven = ScriptedRoute.length(of: ride)
        let expected = driven / 1000 * 1.20 * 100
        #expect(driven > 900)
        #expect(abs(Double(fare.amountMinor) - expected) <= expected * 0.02, "fare \(fare.amountMinor) for \(driven) m")
        #expect(driver.model.shift.notice == "Trip completed. Fare \(fare.display ?? "").")
    }

    @Test func anOfferThatExpiresWhileInTheBackgroundIsGoneOnReturn() async throws {
        let driver = SimulatedDriver(server)
        var notified: [String] = []
        driver.model.onNotify = { notified.append($0) }
        try await driver.comeOnline(at: Helsinki.station)
        driver.clock.catchUp(to: Date())  // the phone's clock is the server's
        driver.model.enteredBackground()
        let rider = try await server.client.createRider(name: "Rider")
        let booking = try await server.client.authenticated(rider.token).book(
            from: Helsinki.station, to: Helsinki.kamppi, idempotencyKey: "background-trip")
        #expect(await eventually { driver.model.shift.phase == .offered })
        #expect(driver.model.shift.offer?.tripID == booking.id)
        #expect(notified.count == 1 && notified[0].hasPrefix("New trip offer"))
        // The countdown's arithmetic is DriverShiftTests'; here the manual clock stood still while the server ran.
        let left = try #require(driver.model.shift.offerSecondsLeft)
        #expect(left > 0)

        driver.clock.advance(Double(left) + 1)  // the phone sleeps past the offer's end
        driver.model.enteredForeground()
        #expect(driver.model.shift.phase == .waiting)
        #expect(driver.model.shift.offer == nil)
        #expect(driver.model.shift.notice?.contains("while SwiftCab was in the background") == true)
        driver.model.accept()  // nothing to accept any more
        await driver.model.settle()
        #expect(driver.model.shift.phase == .waiting)
    }

    @Test func aTripInHandWhenTheAppClosedIsResumedAfterSigningIn() async throws {
        let driver = SimulatedDriver(server)
        var inHand: [String?] = []
        driver.model.onTripChanged = { inHand.append($0) }
        try await driver.comeOnline(at: Helsinki.station)
        let rider = try await server.client.createRider(name: "Rider")
        let booking = try await server.client.authenticated(rider.token).book(
            from: Helsinki.station, to: Helsinki.kamppi, idempotencyKey: "resume-trip")
        #expect(await eventually { driver.model.shift.phase == .offered })
        await driver.tap { $0.accept() }
        #expect(inHand == [booking.id])
        driver.model.stop()  // the system ends the app
        let token = try #require(driver.model.token)

        let location = ScriptedLocation()
        let again = DriverModel(client: server.client, location: location)
        again.signIn(token: token, resumingTrip: booking.id)
        await again.settle()
        #expect(again.shift.phase == .toPickup)
        #expect(again.shift.trip?.id == booking.id)
        #expect(location.isRunning, "positions flow again")
        again.arrived()
        await again.settle()
        #expect(again.shift.phase == .atPickup, "\(again.shift.error ?? "")")
        again.stop()
    }

    @Test func goingOfflineWithATripInHandIsRefusedInWords() async throws {
        let driver = SimulatedDriver(server)
        try await driver.comeOnline(at: Helsinki.station)
        let rider = try await server.client.createRider(name: "Rider")
        _ = try await server.client.authenticated(rider.token).book(
            from: Helsinki.station, to: Helsinki.kamppi, idempotencyKey: "offline-trip")
        #expect(await eventually { driver.model.shift.phase == .offered })
        await driver.tap { $0.accept() }
        driver.model.goOffline()
        #expect(driver.model.shift.phase == .toPickup)
        #expect(driver.model.shift.error?.hasPrefix("You have a trip in hand.") == true)
    }
}
