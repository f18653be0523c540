import Foundation
import Testing

@testable import CabCore

@Suite struct TripTransitionTableTests {
    let table = TripTransitionTable.standard

    @Test func everyStateIsReachableFromRequested() {
        var seen: Set<TripState> = [.requested]
        var frontier: [TripState] = [.requested]
        while let state = frontier.popLast() {
            for t in table.transitions where t.from == state && seen.insert(t.to).inserted { frontier.append(t.to) }
        }
        #expect(seen == Set(TripState.allCases))
    }

    @Test func terminalStatesHaveNoExitsAndOthersHaveSome() {
        for state in TripState.allCases {
            let exits = table.transitions.filter { $0.from == state }
            #expect(exits.isEmpty == state.isTerminal, "\(state)")
        }
        #expect(
            table.states.filter(\.terminal).map(\.name) == [
                .completed, .cancelledByRider, .cancelledByDriver, .noDriverFound, .expired,
            ])
    }

    @Test func eachStateAndEventLeadsToAtMostOneState() {
        let pairs = table.transitions.map { "\($0.from)/\($0.event)" }
        #expect(Set(pairs).count == pairs.count)
        #expect(table.transitions.allSatisfy { !$0.roles.isEmpty })
        #expect(!table.transitions.contains { $0.event == .book })
    }

    @Test func riderMayCancelUntilPickupButNotAfter() {
        #expect(table.states(accepting: .riderCancel) == [.requested, .dispatching, .accepted, .arriving, .arrived])
        #expect(table.transition(from: .inProgress, on: .riderCancel) == nil)
    }

    /// Issue 13: a trip with a driver goes back to dispatch on `redispatch`; only the system's overdue one waits
    /// for the `pickup_overdue` timeout; a driver never ends a trip by cancelling (a dispatcher does).
    @Test func aTripWithADriverCanGoBackToDispatch() {
        #expect(table.states(accepting: .redispatch) == [.accepted, .arriving, .arrived])
        #expect(table.transitions.filter { $0.event == .redispatch }.allSatisfy { $0.to == .dispatching })
        #expect(table.transition(from: .accepted, on: .redispatch)?.timeout?.name == "pickup_overdue")
        #expect(table.transition(from: .accepted, on: .redispatch)?.timeout?.seconds == 600)
        #expect(table.transition(from: .arrived, on: .redispatch)?.roles == [.driver, .dispatcher])
        #expect(table.transitions.filter { $0.event == .driverCancel }.allSatisfy { $0.roles == [.dispatcher] })
        #expect(table.transition(from: .inProgress, on: .driverCancel)?.to == .cancelledByDriver)
        #expect(table.transition(from: .accepted, on: .arrive)?.roles == [.driver, .dispatcher])
    }

    @Test func servesAsJSONWithSnakeCaseNamesRolesAndTimeouts() throws {
        let table = TripTransitionTable(timeouts: TripTimeouts(noShowSeconds: 240))
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let json = String(decoding: try encoder.encode(table), as: UTF8.self)
        #expect(json.contains(#"{"event":"no_show","from":"arrived","roles":["driver","system"],"timeout""#))
        #expect(json.contains(#""name":"no_show","seconds":240"#))
        #expect(json.contains(#""in_progress""#) && json.contains(#""cancelled_by_rider""#))
        let decoded = try JSONDecoder().decode(TripTransitionTable.self, from: Data(json.utf8))
        #expect(decoded == table)
        let noShow = try #require(decoded.transition(from: .arrived, on: .noShow))
        #expect(noShow.roles == [.driver, .system] && noShow.to == .cancelledByDriver)
    }
}
