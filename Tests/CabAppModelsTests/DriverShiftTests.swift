import CabAppModels
import CabClient
import CabGeo
import Foundation
import Testing

/// `DriverShift` alone: events in, actions and words out, a clock given by each event.
@Suite struct DriverShiftTests {
    static let t0 = Date(timeIntervalSince1970: 1_796_000_000)
    static let here = Coordinate(latitude: 60.1699, longitude: 24.9384)
    static let account = AccountInfo(role: "driver", id: "dr_1", name: "Sam", vehicle: "Prius", plate: "ABC-123")

    static func offer(_ id: String = "bk_1", expiresIn seconds: Double = 10) -> TripOffer {
        TripOffer(
            tripID: id, pickup: here, dropoff: here, pickupName: "Rautatientori", dropoffName: "Kamppi",
            etaSeconds: 120,
            expiresAt: t0.addingTimeInterval(seconds).formatted(
                Date.ISO8601FormatStyle(includingFractionalSeconds: true)))
    }

    static func trip(_ status: String) -> BookingSummary {
        BookingSummary(id: "bk_1", status: status, pickup: here, dropoff: here)
    }

    static func waiting() -> DriverShift {
        var shift = DriverShift(account: account)
        _ = shift.handle(.goOnlineTapped)
        #expect(shift.handle(.statusChanged(online: true)) == [.startLocation, .openStream])
        return shift
    }

    static func atPickup() -> DriverShift {
        var shift = waiting()
        _ = shift.handle(.streamEvent(.offer(offer()), now: t0))
        _ = shift.handle(.acceptTapped(now: t0))
        _ = shift.handle(.accepted(trip("accepted")))
        _ = shift.handle(.arrivedTapped)
        _ = shift.handle(.arrived(trip("arrived")))
        return shift
    }

    @Test func theOfferCountsDownAndExpiresIntoWaiting() {
        var shift = Self.waiting()
        _ = shift.handle(.streamEvent(.offer(Self.offer()), now: Self.t0))
        #expect(shift.phase == .offered && shift.offerSecondsLeft == 10)
        _ = shift.handle(.tick(now: Self.t0.addingTimeInterval(3.2)))
        #expect(shift.offerSecondsLeft == 7)
        _ = shift.handle(.tick(now: Self.t0.addingTimeInterval(10)))
        #expect(shift.phase == .waiting && shift.offer == nil)
        #expect(shift.notice == "The offer expired and went to another driver.")
    }

    @Test func anAcceptAfterTheEndIsNotSent() {
        var shift = Self.waiting()
        _ = shift.handle(.streamEvent(.offer(Self.offer()), now: Self.t0))
        #expect(shift.handle(.acceptTapped(now: Self.t0.addingTimeInterval(10.5))).isEmpty)
        #expect(shift.phase == .waiting)
    }

    @Test func anOfferInTheBackgroundNotifiesAndIsGoneOnReturnWhenItExpired() {
        var shift = Self.waiting()
        _ = shift.handle(.enteredBackground(now: Self.t0))
        let actions = shift.handle(.streamEvent(.offer(Self.offer()), now: Self.t0))
        #expect(actions == [.notify("New trip offer: pickup at Rautatientori. Open SwiftCab to accept.")])
        let back = shift.handle(.enteredForeground(now: Self.t0.addingTimeInterval(30)))
        #expect(back == [.openStream])
        #expect(shift.phase == .waiting)
        #expect(shift.notice?.contains("while SwiftCab was in the background") == true)
    }

    @Test(arguments: [
        ("taken", "Another driver took that trip."), ("expired", "The offer expired and went to another driver."),
    ])
    func aWithdrawnOfferSaysWhy(reason: String, words: String) {
        var shift = Self.waiting()
        _ = shift.handle(.streamEvent(.offer(Self.offer()), now: Self.t0))
        _ = shift.handle(
            .streamEvent(.cancelled(tripID: "bk_1", by: "system", status: nil, reason: reason), now: Self.t0))
        #expect(shift.phase == .waiting && shift.notice == words)
    }

    @Test func aLostRaceForTheOfferIsSaidInWords() {
        var shift = Self.waiting()
        _ = shift.handle(.streamEvent(.offer(Self.offer()), now: Self.t0))
        #expect(shift.handle(.acceptTapped(now: Self.t0)) == [.accept(tripID: "bk_1")])
        _ = shift.handle(.acceptFailed(status: 409, message: "Cannot accept a booking that is cancelled_by_rider"))
        #expect(shift.phase == .waiting)
        #expect(shift.error == "This trip is no longer available: another driver took it or the rider cancelled.")
    }

    @Test(arguments: [
        ("", "Enter the rider's 4-digit PIN or scan their QR code."),
        ("123", "A PIN has 4 digits; ask the rider again."),
        (
            "bk_other.0123456789abcdef0123",
            "This QR code is for another trip. Ask the rider to show the code of this booking."
        ),
        // The bare booking id (what an old rider app drew): the server refuses it and counts it towards the lock.
        ("bk_1", "That is not a SwiftCab trip code. Ask the rider for their PIN, or scan the QR code in their app."),
        ("bk_1.", "That is not a SwiftCab trip code. Ask the rider for their PIN, or scan the QR code in their app."),
    ])
    func aCodeThatCannotBeRightIsNotSent(code: String, words: String) {
        var shift = Self.atPickup()
        #expect(shift.handle(.startTapped(code: code)).isEmpty)
        #expect(shift.phase == .atPickup && shift.error == words)
    }

    @Test(arguments: ["4821", " bk_1.0123456789abcdef0123 "])
    func thePINOrThisTripsQRStartsIt(code: String) {
        var shift = Self.atPickup()
        let trimmed = code.trimmingCharacters(in: .whitespaces)
        #expect(shift.handle(.startTapped(code: code)) == [.start(tripID: "bk_1", code: trimmed)])
        _ = shift.handle(.commandFailed(status: 422, message: "That code does not match this booking"))
        #expect(shift.phase == .atPickup)
        #expect(shift.error?.hasPrefix("That code does not match this trip.") == true)
    }

    @Test func aCameraThatCannotScanSendsTheDriverToThePIN() {
        var shift = Self.atPickup()
        #expect(shift.handle(.scannerUnavailable).isEmpty)
        #expect(shift.phase == .atPickup)
        #expect(shift.error?.hasSuffix("Type the rider's 4-digit PIN.") == true)
        var waiting = Self.waiting()
        _ = waiting.handle(.scannerUnavailable)
        #expect(waiting.error == nil)  // no scanner outside the pickup
    }

    @Test func theScreenSaysWhatToDoAtEachStep() {
        var shift = Self.waiting()
        #expect(shift.accountLine == "Sam · Prius · ABC-123")
        _ = shift.handle(.streamEvent(.offer(Self.offer()), now: Self.t0))
        #expect(shift.offerTitle == "New trip: Rautatientori → Kamppi")
        #expect(shift.offerETALine == "2 min to the pickup")
        #expect(shift.countdownLine == "10 s to answer")
        _ = shift.handle(.tick(now: Self.t0.addingTimeInterval(3.2)))
        #expect(shift.countdownLine == "7 s to answer")
        #expect(!shift.isBusy)
        _ = shift.handle(.acceptTapped(now: Self.t0.addingTimeInterval(4)))
        #expect(shift.isBusy)  // accepting: the buttons wait for the answer
        var accepted = Self.trip("accepted")
        accepted.pickupName = "Rautatientori"
        _ = shift.handle(.accepted(accepted))
        #expect(shift.offerTitle == nil && shift.countdownLine == nil)
        #expect(shift.driveToLine == "Drive to Rautatientori")
        _ = shift.handle(.arrivedTapped)
        _ = shift.handle(.arrived(Self.trip("arrived")))
        #expect(shift.driveToLine == nil && !shift.isBusy)
        _ = shift.handle(.startTapped(code: "4821"))
        _ = shift.handle(.started(Self.trip("in_progress")))
        #expect(shift.driveToLine == "Drive to the drop-off")  // no name given
        _ = shift.handle(.completeTapped)
        var done = Self.trip("completed")
        done.finalFare = Fare(total: MoneyAmount(amountMinor: 540, currency: "EUR"))
        _ = shift.handle(.completed(done))
        #expect(shift.fareLine == "Fare 5.40 EUR")  // the server sent no display words: made here
    }

    @Test func anAccountWithoutCarDetailsHasNoEmptyParts() {
        let shift = DriverShift(
            account: AccountInfo(role: "driver", id: "dr_2", name: "Aino", vehicle: " ", plate: nil))
        #expect(shift.accountLine == "Aino")
    }

    @Test func theRideStartsItsTrailAfterTheServersStartTime() {
        var shift = Self.atPickup()
        _ = shift.handle(.startTapped(code: "4821"))
        var started = Self.trip("in_progress")
        started.actualPickupAt = "2026-12-01T09:00:00.500Z"
        started.route = BookedRoute(
            distanceMeters: 900, durationSeconds: 120, polyline: Polyline.encode([Self.here, Self.here]))
        let actions = shift.handle(.started(started))
        let expected = try! Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse("2026-12-01T09:00:00.500Z")
        #expect(actions == [.markPosition(notBefore: expected)])
        #expect(shift.route.count == 2)
        #expect(shift.handle(.completeTapped) == [.complete(tripID: "bk_1")])
        var done = Self.trip("completed")
        done.finalFare = Fare(total: MoneyAmount(amountMinor: 111, currency: "EUR", display: "1.11 EUR"), lines: nil)
        _ = shift.handle(.completed(done))
        #expect(shift.phase == .tripDone && shift.notice == "Trip completed. Fare 1.11 EUR.")
        _ = shift.handle(.doneTapped)
        #expect(shift.phase == .waiting)
    }

    @Test func noGoingOfflineOrSigningOutWithATripInHand() {
        var shift = Self.atPickup()
        #expect(shift.handle(.goOfflineTapped).isEmpty)
        #expect(shift.error?.hasPrefix("You have a trip in hand.") == true)
        var online = Self.waiting()
        #expect(online.handle(.signOutTapped).isEmpty)
        #expect(online.error == "Go offline before signing out.")
        #expect(online.handle(.goOfflineTapped) == [.setOnline(false)])
        #expect(online.handle(.statusChanged(online: false)) == [.stopLocation, .closeStream])
    }

    @Test func aRiderCancelInTheBackgroundIsNotified() {
        var shift = Self.atPickup()
        _ = shift.handle(.enteredBackground(now: Self.t0))
        let actions = shift.handle(
            .streamEvent(
                .cancelled(tripID: "bk_1", by: "rider", status: "cancelled_by_rider", reason: nil), now: Self.t0))
        #expect(actions == [.notify("The rider cancelled the trip.")])
        #expect(shift.phase == .waiting && shift.trip == nil)
    }

    @Test func signUpNeedsEveryFieldAndATokenMustBeADriversOwn() {
        var shift = DriverShift()
        #expect(shift.handle(.signUpTapped(name: "Sam", vehicle: " ", plate: "ABC")).isEmpty)
        #expect(shift.error == "Fill in your name, your car and its number plate.")
        #expect(shift.handle(.signInTapped(token: " tok ")) == [.checkToken("tok")])
        _ = shift.handle(.signedIn(AccountInfo(role: "rider", id: "rd_1", name: "Aino")))
        #expect(shift.phase == .signedOut && shift.error == "That token belongs to a rider, not a driver.")
    }

    @Test func aResumedTripMustBeThisDriversAndStillOpen() {
        var other = Self.trip("accepted")
        other.driver = DriverInfo(id: "dr_2", name: "Someone else")
        var shift = DriverShift(account: Self.account)
        #expect(shift.handle(.resumed(other)).isEmpty)
        #expect(shift.handle(.resumed(Self.trip("completed"))).isEmpty)
        #expect(shift.phase == .offline)
        var mine = Self.trip("arrived")
        mine.driver = DriverInfo(id: "dr_1", name: "Sam")
        #expect(shift.handle(.resumed(mine)) == [.startLocation, .openStream])
        #expect(shift.phase == .atPickup)
    }

    @Test func driverStreamEventsDecode() {
        let offer = DriverStreamEvent(
            ServerSentEvent(
                type: "offer",
                data:
                    #"{"trip_id":"bk_1","pickup":{"lat":60.1,"lon":24.9},"dropoff":{"lat":60.2,"lon":24.8},"eta_s":90,"expires_at":"2026-12-01T09:00:10Z"}"#
            ))
        guard case .offer(let o)? = offer else {
            Issue.record("not an offer: \(String(describing: offer))")
            return
        }
        #expect(o.tripID == "bk_1" && o.etaSeconds == 90 && o.pickupName == nil)
        #expect(
            DriverStreamEvent(ServerSentEvent(type: "assigned", data: #"{"trip_id":"bk_2","status":"accepted"}"#))
                == .assigned(tripID: "bk_2", status: "accepted"))
        #expect(DriverStreamEvent(ServerSentEvent(type: "heartbeat", data: "{}")) == nil)
    }
}
