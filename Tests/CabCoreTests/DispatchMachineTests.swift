import Testing

@testable import CabCore

/// Dispatch policy without I/O: batches, ranking by road ETA, declines, timeouts, giving up.
@Suite struct DispatchMachineTests {
    static let t0 = Fixtures.created
    static func driver(_ n: UInt8) -> DriverID { DriverID(randomBytes: Array(repeating: n, count: 10)) }
    static func candidate(_ n: UInt8, eta: Int, air: Double = 100) -> DispatchCandidate {
        DispatchCandidate(driver: driver(n), etaSeconds: eta, distanceMeters: air)
    }

    func offered(_ actions: [DispatchAction]) -> [DriverID] {
        actions.flatMap { action -> [DriverID] in
            guard case .offer(let offers) = action else { return [] }
            return offers.map(\.driver)
        }
    }

    @Test func offersTheBatchWithTheShortestRoadETANotTheNearestByAir() {
        var m = DispatchMachine(configuration: DispatchConfiguration(batchSize: 2))
        #expect(m.start(at: Self.t0) == [.findCandidates(radiusMeters: 2_000, excluding: [])])
        let actions = m.candidatesFound(
            [
                Self.candidate(1, eta: 600, air: 50), Self.candidate(2, eta: 120, air: 900),
                Self.candidate(3, eta: 200, air: 400),
            ],
            at: Self.t0)
        #expect(offered(actions) == [Self.driver(2), Self.driver(3)])
        #expect(actions.contains(.scheduleTimer(Self.t0.adding(seconds: 10))))
        #expect(m.isOffered(to: Self.driver(2), at: Self.t0.adding(seconds: 9)))
        #expect(!m.isOffered(to: Self.driver(2), at: Self.t0.adding(seconds: 10)))
        #expect(!m.isOffered(to: Self.driver(1), at: Self.t0))
    }

    @Test func declinesMoveOnAndADeclinerIsNeverOfferedAgain() {
        var m = DispatchMachine(configuration: DispatchConfiguration(batchSize: 2))
        _ = m.start(at: Self.t0)
        _ = m.candidatesFound([Self.candidate(1, eta: 60), Self.candidate(2, eta: 70)], at: Self.t0)
        #expect(m.declined(by: Self.driver(1), at: Self.t0).isEmpty)  // driver 2 still holds an offer
        let next = m.driverUnavailable(Self.driver(2), at: Self.t0)  // went offline: the batch is empty
        #expect(next == [.findCandidates(radiusMeters: 4_000, excluding: [Self.driver(1), Self.driver(2)])])
        // Even if the search returns them again, they are not re-offered.
        let again = m.candidatesFound(
            [Self.candidate(1, eta: 10), Self.candidate(2, eta: 10), Self.candidate(3, eta: 500)], at: Self.t0)
        #expect(offered(again) == [Self.driver(3)])
        #expect(m.declinedDrivers == [Self.driver(1)])
    }

    /// Dispatch resumed after a restart starts from the stored declines: those drivers are excluded from the
    /// first search and never offered, even when a search returns them.
    @Test func declinesGivenAtStartAreNeverOffered() {
        var m = DispatchMachine(configuration: DispatchConfiguration(batchSize: 3), declined: [Self.driver(1)])
        #expect(m.start(at: Self.t0) == [.findCandidates(radiusMeters: 2_000, excluding: [Self.driver(1)])])
        let offers = m.candidatesFound([Self.candidate(1, eta: 10), Self.candidate(2, eta: 60)], at: Self.t0)
        #expect(offered(offers) == [Self.driver(2)])
        #expect(m.declinedDrivers == [Self.driver(1)])
    }

    @Test func timeoutsWithdrawOpenOffersAndTheLastBatchGivesUp() {
        var m = DispatchMachine(configuration: DispatchConfiguration(batchSize: 1, maximumBatches: 2))
        _ = m.start(at: Self.t0)
        _ = m.candidatesFound([Self.candidate(1, eta: 60)], at: Self.t0)
        #expect(m.timerFired(at: Self.t0.adding(seconds: 9)).isEmpty)  // too early: nothing
        let lapse = m.timerFired(at: Self.t0.adding(seconds: 10))
        #expect(
            lapse == [
                .withdraw([Self.driver(1)], .expired),
                .findCandidates(radiusMeters: 4_000, excluding: [Self.driver(1)]),
            ])
        _ = m.candidatesFound([Self.candidate(2, eta: 60)], at: Self.t0.adding(seconds: 10))
        #expect(m.timerFired(at: Self.t0.adding(seconds: 20)) == [.withdraw([Self.driver(2)], .expired), .giveUp])
        #expect(m.phase == .gaveUp)
        #expect(m.timerFired(at: Self.t0.adding(seconds: 99)).isEmpty)
    }

    @Test func anEmptySearchWidensAtOnceThenWaitsAtTheWidestRadius() {
        var m = DispatchMachine(
            configuration: DispatchConfiguration(searchRadiiMeters: [1_000, 3_000], maximumBatches: 3))
        _ = m.start(at: Self.t0)
        #expect(m.candidatesFound([], at: Self.t0) == [.findCandidates(radiusMeters: 3_000, excluding: [])])
        #expect(m.candidatesFound([], at: Self.t0) == [.scheduleTimer(Self.t0.adding(seconds: 10))])
        #expect(m.timerFired(at: Self.t0.adding(seconds: 10)) == [.findCandidates(radiusMeters: 3_000, excluding: [])])
        #expect(m.candidatesFound([], at: Self.t0.adding(seconds: 10)) == [.giveUp])
    }

    @Test func anAcceptWithdrawsTheOtherOffersAndLateEventsChangeNothing() {
        var m = DispatchMachine()
        _ = m.start(at: Self.t0)
        _ = m.candidatesFound(
            [Self.candidate(1, eta: 60), Self.candidate(2, eta: 70), Self.candidate(3, eta: 80)], at: Self.t0)
        #expect(m.accepted(by: Self.driver(2), at: Self.t0) == [.withdraw([Self.driver(1), Self.driver(3)], .taken)])
        #expect(m.phase == .assigned(Self.driver(2)))
        #expect(m.declined(by: Self.driver(1), at: Self.t0).isEmpty)
        #expect(m.timerFired(at: Self.t0.adding(seconds: 60)).isEmpty)
        #expect(m.cancelled(at: Self.t0).isEmpty)
    }

    @Test func aCancelWithdrawsEveryOpenOffer() {
        var m = DispatchMachine()
        _ = m.start(at: Self.t0)
        _ = m.candidatesFound([Self.candidate(1, eta: 60), Self.candidate(2, eta: 70)], at: Self.t0)
        #expect(m.cancelled(at: Self.t0) == [.withdraw([Self.driver(1), Self.driver(2)], .cancelled)])
        #expect(m.candidatesFound([Self.candidate(3, eta: 1)], at: Self.t0).isEmpty)
    }
}

/// Arrival alerts: a tier fires only when crossed from above, once, the smallest tier crossed wins, jitter
/// does not repeat, and the text states the real ETA.
@Suite struct ArrivalAlertTrackerTests {
    @Test func eachTierFiresOnceDespiteJitter() {
        var t = ArrivalAlertTracker()
        #expect(t.etaChanged(toSeconds: 420).isEmpty)
        #expect(t.etaChanged(toSeconds: 299).map(\.kind) == ["arriving_5_min"])
        for eta in [310, 295, 330, 290, 305] { #expect(t.etaChanged(toSeconds: eta).isEmpty) }
        #expect(t.etaChanged(toSeconds: 59).map(\.message) == ["Your driver arrives in 1 minute"])
        #expect(t.etaChanged(toSeconds: 65).isEmpty && t.etaChanged(toSeconds: 40).isEmpty)
        #expect(t.driverArrived() == [.arrived])
        #expect(t.driverArrived().isEmpty && t.etaChanged(toSeconds: 5).isEmpty)
    }

    /// Issue 13: "Arriving in 5 minutes" fired when the first ETA was already 2 minutes.
    @Test func aFirstETAUnderATierNeverFiresItButTheNextTierCrossedDoes() {
        var t = ArrivalAlertTracker()
        #expect(t.etaChanged(toSeconds: 120).isEmpty)
        #expect(t.etaChanged(toSeconds: 100).isEmpty)  // still under 5 min, never crossed it from above
        let one = t.etaChanged(toSeconds: 50)
        #expect(one.map(\.kind) == ["arriving_1_min"])
        #expect(one.first?.etaSeconds == 50)
        #expect(t.etaChanged(toSeconds: 200).isEmpty)
    }

    @Test func aFirstETAUnderBothTiersSendsNothing() {
        var t = ArrivalAlertTracker()
        #expect(t.etaChanged(toSeconds: 45).isEmpty)
        #expect(t.etaChanged(toSeconds: 20).isEmpty)
    }

    @Test func oneDropAcrossBothTiersSendsOnlyTheSmaller() {
        var t = ArrivalAlertTracker()
        #expect(t.etaChanged(toSeconds: 400).isEmpty)
        #expect(t.etaChanged(toSeconds: 45).map(\.kind) == ["arriving_1_min"])
        #expect(t.etaChanged(toSeconds: 200).isEmpty)
    }

    @Test(arguments: [
        (299, "5 minutes"), (250, "4 minutes"), (130, "2 minutes"), (89, "1 minute"), (29, "less than a minute"),
    ])
    func theTextStatesTheRealMinutes(eta: Int, words: String) {
        var t = ArrivalAlertTracker(configuration: ArrivalAlertConfiguration(tiersSeconds: [300]))
        _ = t.etaChanged(toSeconds: 600)
        let alert = t.etaChanged(toSeconds: eta).first
        #expect(alert?.message == "Your driver arrives in \(words)")
        #expect(alert?.kind == "arriving_5_min" && alert?.thresholdSeconds == 300)
    }

    @Test func aRealDetourBeyondTheBandReArmsTheTier() {
        var t = ArrivalAlertTracker(
            configuration: ArrivalAlertConfiguration(tiersSeconds: [120], hysteresisSeconds: 60))
        #expect(t.etaChanged(toSeconds: 150).isEmpty)
        #expect(t.etaChanged(toSeconds: 100).count == 1)
        #expect(t.etaChanged(toSeconds: 170).isEmpty)  // within the band
        #expect(t.etaChanged(toSeconds: 110).isEmpty)
        #expect(t.etaChanged(toSeconds: 200).isEmpty)  // beyond: re-armed
        #expect(t.etaChanged(toSeconds: 115).map(\.kind) == ["arriving_2_min"])
    }
}
