import Testing

@testable import CabCore

/// The actions say everything the trip service must do after a transition (issue 14): it performs them and
/// derives nothing from the status. Every allowed (state, event) pair of the standard table.
@Suite struct TripStateMachineActionTests {
    static let allowed: [(TripState, TripEvent)] = TripStateMachineTests.pairs.filter {
        TripTransitionTable.standard.transition(from: $0.0, on: $0.1) != nil
    }

    @Test(arguments: allowed)
    func theActionsCoverWhatTheOwnerMustDo(state: TripState, event: TripEvent) throws {
        let before = Fixtures.booking(in: state)
        var machine = TripStateMachine(booking: before, tariff: Fixtures.tariff())
        let (command, actor) = try #require(Fixtures.command(for: event))
        let step = try machine.handle(command, by: actor, at: Fixtures.created.adding(seconds: 86_400))
        let after = machine.booking
        let actions = step.actions
        // The trip leaves dispatch: offers are withdrawn, as taken by the new driver when one has it.
        let leavesDispatch = (state == .requested || state == .dispatching) && after.status != .dispatching
        let ended = actions.contains { if case .endDispatch = $0 { true } else { false } }
        #expect(ended == leavesDispatch, "\(actions)")
        if after.status == .accepted, let driver = after.driverID {
            #expect(actions.contains(.endDispatch(acceptedBy: driver)))
            #expect(actions.contains(.followDriver(driver)))
        }
        // A finished trip: its followers and links end; a driver it had is released and no longer followed.
        if after.status.isTerminal {
            #expect(actions.contains(.endTrackingLinks))
            if let driver = before.driverID {
                #expect(actions.contains(.releaseDriver(driver)) && actions.contains(.stopFollowing))
            }
        }
        #expect(actions.contains(.announceArrival) == (event == .arrive))
        #expect(actions.contains(.startDispatch) == (event == .dispatch))
    }
}
