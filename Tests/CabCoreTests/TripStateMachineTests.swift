import Testing

@testable import CabCore

@Suite struct TripStateMachineTests {
    let table = TripTransitionTable.standard
    let later = Fixtures.created.adding(seconds: 86_400)  // past every timeout

    static let pairs: [(TripState, TripEvent)] = TripState.allCases.flatMap { s in
        TripEvent.allCases.filter { $0 != .book }.map { (s, $0) }
    }

    @Test(arguments: pairs)
    func everyStateAgainstEveryEvent(state: TripState, event: TripEvent) throws {
        let before = Fixtures.booking(in: state)
        var machine = TripStateMachine(booking: before, tariff: Fixtures.tariff(), table: table)
        let (command, actor) = try #require(Fixtures.command(for: event))
        let harmlessRepeat =
            (event == .riderCancel && state == .cancelledByRider)
            || (event == .driverCancel && state == .cancelledByDriver)
        if let transition = table.transition(from: state, on: event) {
            let step = try machine.handle(command, by: actor, at: later)
            #expect(machine.state == transition.to)
            #expect(machine.booking.statusChangedAt == later)
            let record = try #require(step.record)
            #expect(
                record.from == state && record.to == transition.to && record.event == event && record.actor == actor)
        } else if harmlessRepeat {
            let step = try machine.handle(command, by: actor, at: later)
            #expect(step.record == nil && step.actions.isEmpty)
            #expect(machine.booking == before)
        } else {
            let error = #expect(throws: CoreError.self) { try machine.handle(command, by: actor, at: later) }
            #expect(error?.code == .illegalTransition)
            #expect(error?.currentTripState == state)
            // Issue 13: details are for people; the state travels in `currentTripState` (`current_state`).
            #expect(error?.message.contains("_") == false, "\(error?.message ?? "")")
            #expect(machine.booking == before)
        }
    }

    @Test func aFullTripFromBookToDropOff() throws {
        var m = TripStateMachine(booking: Fixtures.booking(in: .requested), tariff: Fixtures.tariff())
        var t = Fixtures.created
        func at(_ seconds: Int) -> Instant {
            t = t.adding(seconds: seconds)
            return t
        }
        #expect(try m.handle(.dispatch, by: .system, at: at(1)).actions.contains(.startDispatch))
        let accepted = try m.handle(.accept(Fixtures.driver), by: .driver(Fixtures.driver), at: at(5))
        #expect(accepted.actions.contains(.notifyDriver(Fixtures.driver, .accepted)))
        _ = try m.handle(.depart, by: .driver(Fixtures.driver), at: at(5))
        _ = try m.handle(.arrive, by: .driver(Fixtures.driver), at: at(240))
        _ = try m.handle(.start(code: "0427"), by: .driver(Fixtures.driver), at: at(60))
        let done = try m.handle(
            .complete(distanceMeters: 10_000, durationSeconds: 900), by: .driver(Fixtures.driver), at: at(900))
        #expect(m.state == .completed)
        #expect(m.booking.finalFare == Money(minorUnits: 1200, currency: .eur))
        #expect(done.actions.contains(.chargeRider(Money(minorUnits: 1200, currency: .eur))))
        #expect(done.actions.contains(.releaseDriver(Fixtures.driver)))
        #expect(m.booking.pickedUpAt == Fixtures.created.adding(seconds: 311))
    }

    @Test func onlyTheRightPeopleMayAct() throws {
        let cases: [(TripState, TripCommand, Principal)] = [
            (.dispatching, .accept(Fixtures.driver), .rider(Fixtures.rider)),  // wrong role
            (.dispatching, .accept(Fixtures.driver), .driver(Fixtures.otherDriver)),  // accepting as someone else
            (.requested, .riderCancel(reason: ""), .rider(Fixtures.otherRider)),  // someone else's booking
            (.accepted, .arrive, .driver(Fixtures.otherDriver)),  // not the assigned driver
            (.requested, .dispatch, .dispatcher(Fixtures.dispatcher)),  // system only
            (.cancelledByRider, .riderCancel(reason: ""), .rider(Fixtures.otherRider)),  // even a repeat
        ]
        for (state, command, actor) in cases {
            let before = Fixtures.booking(in: state)
            var m = TripStateMachine(booking: before, tariff: Fixtures.tariff())
            let error = #expect(throws: CoreError.self) { try m.handle(command, by: actor, at: later) }
            #expect(error?.code == .notPermitted, "\(state) \(command) by \(actor)")
            #expect(m.booking == before)
        }
    }

    @Test func startNeedsThePINNotTheBookingID() throws {
        var m = TripStateMachine(booking: Fixtures.booking(in: .arrived), tariff: Fixtures.tariff())
        let error = #expect(throws: CoreError.self) {
            try m.handle(.start(code: "1234"), by: .driver(Fixtures.driver), at: later)
        }
        #expect(error?.code == .wrongCode && m.state == .arrived)
        // The booking id is no code: the driver has it from the offer (the QR's secret is the API's to check).
        let byID = #expect(throws: CoreError.self) {
            try m.handle(.start(code: Fixtures.bookingID.rawValue), by: .driver(Fixtures.driver), at: later)
        }
        #expect(byID?.code == .wrongCode && m.state == .arrived)
        _ = try m.handle(.start(code: "0427"), by: .driver(Fixtures.driver), at: later)
        #expect(m.state == .inProgress)
    }

    @Test func timeoutsAreRefusedEarlyAndReportedWhenDue() throws {
        var m = TripStateMachine(booking: Fixtures.booking(in: .arrived), tariff: Fixtures.tariff())
        let arrived = m.booking.statusChangedAt
        let deadline = try #require(m.nextDeadline)
        #expect(deadline.command == .noShow && deadline.at == arrived.adding(seconds: 300))
        #expect(m.dueTimeout(at: arrived.adding(seconds: 299)) == nil)
        #expect(m.dueTimeout(at: arrived.adding(seconds: 300)) == .noShow)
        let early = #expect(throws: CoreError.self) {
            try m.handle(.noShow, by: .driver(Fixtures.driver), at: arrived.adding(seconds: 299))
        }
        #expect(early?.code == .tooEarly)
        #expect(
            early?.message
                == "The rider still has time to come (the wait is 5 minutes): you can report a no-show in 1 minute.")
        let step = try m.handle(.noShow, by: .driver(Fixtures.driver), at: arrived.adding(seconds: 300))
        #expect(m.state == .cancelledByDriver && m.booking.cancellation?.reason == "no_show")
        #expect(step.actions.contains(.chargeRider(Money(minorUnits: 500, currency: .eur))))
        let requested = TripStateMachine(booking: Fixtures.booking(in: .requested), tariff: Fixtures.tariff())
        #expect(requested.nextDeadline?.command == .expire)
        #expect(
            TripStateMachine(booking: Fixtures.booking(in: .inProgress), tariff: Fixtures.tariff()).nextDeadline == nil)
    }

    @Test func riderCancellationFeeFollowsTheTariffAndIsChargedOnce() throws {
        var b = Fixtures.booking(in: .accepted)
        let acceptedAt = try #require(b.acceptedAt)
        var free = TripStateMachine(booking: b, tariff: Fixtures.tariff())
        let inGrace = try free.handle(
            .riderCancel(reason: "oops"), by: .rider(Fixtures.rider), at: acceptedAt.adding(seconds: 60))
        #expect(free.booking.cancellation?.fee.isZero == true)
        #expect(!inGrace.actions.contains { if case .chargeRider = $0 { true } else { false } })
        #expect(inGrace.actions.contains(.notifyDriver(Fixtures.driver, .cancelledByRider)))
        #expect(inGrace.actions.contains(.releaseDriver(Fixtures.driver)))

        b.statusChangedAt = acceptedAt
        var late = TripStateMachine(booking: b, tariff: Fixtures.tariff())
        let first = try late.handle(
            .riderCancel(reason: "too slow"), by: .rider(Fixtures.rider), at: acceptedAt.adding(seconds: 600))
        #expect(first.actions.contains(.chargeRider(Money(minorUnits: 500, currency: .eur))))
        let cancellation = try #require(late.booking.cancellation)
        #expect(cancellation.by == .rider(Fixtures.rider) && cancellation.reason == "too slow")
        let second = try late.handle(
            .riderCancel(reason: "again"), by: .rider(Fixtures.rider), at: acceptedAt.adding(seconds: 700))
        #expect(second.record == nil && second.actions.isEmpty)
        #expect(late.booking.cancellation == cancellation)
    }

    @Test func aFinishedBookingCannotBeCancelled() {
        var m = TripStateMachine(booking: Fixtures.booking(in: .completed), tariff: Fixtures.tariff())
        let error = #expect(throws: CoreError.self) {
            try m.handle(.riderCancel(reason: "late"), by: .rider(Fixtures.rider), at: later)
        }
        #expect(error?.message == "This trip can no longer be cancelled: the ride is already over.")
    }

    /// Issue 13: the rider is told in their words why a ride under way cannot be cancelled.
    @Test func aRiderCannotCancelARideUnderWayAndIsToldWhy() {
        var m = TripStateMachine(booking: Fixtures.booking(in: .inProgress), tariff: Fixtures.tariff())
        let error = #expect(throws: CoreError.self) {
            try m.handle(.riderCancel(reason: ""), by: .rider(Fixtures.rider), at: later)
        }
        #expect(error?.code == .illegalTransition && error?.currentTripState == .inProgress)
        #expect(error?.message.hasPrefix("Your ride has already started, so it can't be cancelled.") == true)
    }

    /// Issue 13: a driver who cancels after accepting hands the trip back: it goes back to dispatch without
    /// them, the rider is told, the driver is released, and the count goes up.
    @Test func aDriversCancelHandsTheTripBackToDispatch() throws {
        for state in [TripState.accepted, .arriving, .arrived] {
            var b = Fixtures.booking(in: state, promisedPickupAt: Fixtures.created.adding(seconds: 400))
            b.arrivedAt = state == .arrived ? Fixtures.created.adding(seconds: 300) : nil
            var m = TripStateMachine(booking: b, tariff: Fixtures.tariff())
            let at = Fixtures.created.adding(seconds: 350)
            let step = try m.handle(.redispatch(reason: .driverCancelled), by: .driver(Fixtures.driver), at: at)
            #expect(m.state == .dispatching && m.booking.statusChangedAt == at)
            #expect(m.booking.driverID == nil && m.booking.acceptedAt == nil && m.booking.promisedPickupAt == nil)
            #expect(m.booking.arrivedAt == nil && m.booking.redispatchCount == 1)
            #expect(m.booking.pickupOverdueAt == nil && !m.booking.isLate(at: at))
            #expect(step.record?.event == .redispatch && step.record?.reason == "driver_cancelled")
            #expect(
                step.actions == [
                    .notifyRider(.dispatching), .redispatch(from: Fixtures.driver, reason: .driverCancelled),
                    .releaseDriver(Fixtures.driver),
                ])
            #expect(m.nextDeadline?.command == .noDriverFound)
        }
        // Someone else's trip, or a rider: refused.
        var other = TripStateMachine(booking: Fixtures.booking(in: .accepted), tariff: Fixtures.tariff())
        #expect(throws: CoreError.self) {
            try other.handle(.redispatch(reason: .driverCancelled), by: .driver(Fixtures.otherDriver), at: later)
        }
        #expect(throws: CoreError.self) {
            try other.handle(.redispatch(reason: .dispatcher), by: .rider(Fixtures.rider), at: later)
        }
    }

    /// Issue 13: an accepted trip whose promised pickup plus the margin passes is due for re-dispatch and
    /// counts as late for good.
    @Test func anOverduePickupIsRedispatchedAtThePromisePlusTheMarginAndStaysLate() throws {
        let promised = Fixtures.created.adding(seconds: 400)
        let table = TripTransitionTable(timeouts: TripTimeouts(pickupOverdueSeconds: 120))
        var m = TripStateMachine(
            booking: Fixtures.booking(in: .arriving, promisedPickupAt: promised), tariff: Fixtures.tariff(),
            table: table)
        let deadline = try #require(m.nextDeadline)
        #expect(deadline.command == .redispatch(reason: .pickupOverdue) && deadline.at == promised.adding(seconds: 120))
        #expect(m.dueTimeout(at: promised.adding(seconds: 119)) == nil)
        #expect(m.booking.isLate(at: promised.adding(seconds: 1)) && !m.booking.isLate(at: promised))
        let early = #expect(throws: CoreError.self) {
            try m.handle(.redispatch(reason: .pickupOverdue), by: .system, at: promised.adding(seconds: 119))
        }
        #expect(early?.code == .tooEarly)
        let at = promised.adding(seconds: 120)
        let step = try m.handle(.redispatch(reason: .pickupOverdue), by: .system, at: at)
        #expect(step.actions.contains(.redispatch(from: Fixtures.driver, reason: .pickupOverdue)))
        #expect(m.state == .dispatching && m.booking.pickupOverdueAt == at && m.booking.isLate(at: at))
        // The next driver is on time, yet the trip stays late.
        _ = try m.handle(.accept(Fixtures.otherDriver), by: .driver(Fixtures.otherDriver), at: at.adding(seconds: 5))
        #expect(m.booking.isLate(at: at.adding(seconds: 6)) && m.booking.redispatchCount == 1)
        // Without a promised time there is no overdue deadline.
        let unpromised = TripStateMachine(
            booking: Fixtures.booking(in: .accepted), tariff: Fixtures.tariff(), table: table)
        #expect(unpromised.nextDeadline == nil)
    }

    /// Issue 13: the receipt keeps the figures and where they come from.
    @Test func completionKeepsTheReceiptsBasis() throws {
        var m = TripStateMachine(booking: Fixtures.booking(in: .inProgress), tariff: Fixtures.tariff())
        _ = try m.handle(
            .complete(distanceMeters: 10_000, durationSeconds: 900, basis: .bookedRoute), by: .driver(Fixtures.driver),
            at: later)
        #expect(
            m.booking.receipt
                == TripReceipt(distanceMeters: 10_000, durationSeconds: 900, basis: .bookedRoute, trailPolyline: nil))
        #expect(m.booking.finalFare == Money(minorUnits: 1200, currency: .eur))
    }
}
