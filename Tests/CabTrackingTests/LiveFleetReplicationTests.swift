import CabGeo
import Testing

@testable import CabTracking

/// `LiveFleet.applyReplicated`: positions other nodes accepted, newest fix wins.
@Suite struct LiveFleetReplicationTests {
    func position(_ second: Int64, metersNorth: Double = 0, status: DriverStatus = .available) -> DriverPosition {
        DriverPosition(
            coordinate: Coordinate(latitude: 60.17 + metersNorth / 111_195, longitude: 24.94),
            timeMilliseconds: t0 + second * 1000, status: status, vehicleClass: .standard)
    }

    @Test func aNewDriverAppearsAndIsFoundNearest() {
        let fleet = LiveFleet<String>()
        let applied = fleet.applyReplicated([("a", position(1, status: .busy))])
        #expect(applied.map(\.driver) == ["a"])
        #expect(fleet.position(of: "a")?.timeMilliseconds == t0 + 1000)
        #expect(fleet.status(of: "a") == .busy)
        let near = fleet.nearest(
            to: Coordinate(latitude: 60.17, longitude: 24.94), k: 5, filter: DriverFilter(statuses: [.busy]),
            now: t0 + 2000)
        #expect(near.map(\.driver) == ["a"])
    }

    @Test func anOlderPositionThanTheKnownOneIsLeftOut() {
        let fleet = LiveFleet<String>()
        _ = fleet.ingest([fix(10, metersNorth: 100)], from: "a", now: t0 + 10_000)
        #expect(fleet.applyReplicated([("a", position(5))]).isEmpty)
        #expect(fleet.position(of: "a")?.timeMilliseconds == t0 + 10_000)
        let newer = fleet.applyReplicated([("a", position(20, metersNorth: 200))])
        #expect(newer.map(\.position.timeMilliseconds) == [t0 + 20_000])
    }

    @Test func aStatusChangedOnAnotherNodeArrivesWithTheSameFix() {
        // The driver went offline on another node: it sends the latest fix again, with the new status.
        let fleet = LiveFleet<String>()
        _ = fleet.applyReplicated([("a", position(1))])
        let offline = fleet.applyReplicated([("a", position(1, status: .offline))])
        #expect(offline.map(\.position.status) == [.offline])
        #expect(fleet.status(of: "a") == .offline)
        let near = fleet.nearest(
            to: Coordinate(latitude: 60.17, longitude: 24.94), k: 5, filter: DriverFilter(statuses: [.available]),
            now: t0 + 2000)
        #expect(near.isEmpty)
        #expect(fleet.applyReplicated([("a", position(1, status: .offline))]).isEmpty)  // nothing new
    }

    @Test func aReplicatedPositionMovesTheRulesOnSoAnOlderLocalFixIsRefused() {
        let fleet = LiveFleet<String>()
        _ = fleet.ingest([fix(1)], from: "a", now: t0 + 1_000)
        _ = fleet.applyReplicated([("a", position(30, metersNorth: 300))])
        let late = fleet.ingest([fix(20, metersNorth: 200)], from: "a", now: t0 + 31_000)
        #expect(late.accepted.isEmpty && late.dropped[.outOfOrder] == 1)
        let next = fleet.ingest([fix(40, metersNorth: 400)], from: "a", now: t0 + 41_000)
        #expect(next.accepted.count == 1)
    }
}
