import CabGeo
import Foundation
import Testing

@testable import CabRouting

/// Turn costs on small drawn maps (`TurnCostModel`, OSRM's car profile's curve): what a square turn each way
/// costs, that a bend or a joint costs nothing, that routes to and from a junction do not drive past it, and
/// that a graph file keeps them.
@Suite struct TurnCostFixtureTests {
    /// A crossing with four 100 m arms: w-c-e east-west, n-c-s north-south.
    static let crossing = """
            n



        w   c   e



            s
        """

    func crossingMap() -> AsciiMap {
        var map = AsciiMap(Self.crossing, spacingMeters: 25, turnCosts: true)
        map.way("wce")
        map.way("nc")
        map.way("cs")
        return map
    }

    /// What OSRM's car profile charges for a turn of `degrees` (positive to the right) where traffic keeps
    /// right, restated from its `process_turn` for the check: 7.5 s times a logistic curve biased by 1.075, and
    /// up to 2 s more across oncoming traffic.
    static func osrmTurnSeconds(_ degrees: Double) -> Double {
        let bias = 1.075
        let x = degrees >= 0 ? (13 / bias) * degrees / 180 - 6.5 * bias : (13 * bias) * -degrees / 180 - 6.5 / bias
        var seconds = 7.5 / (1 + exp(-x))
        if degrees < 0 { seconds += 2 / (1 + exp(-(13 * -degrees / 180 - 3.25))) }
        return seconds
    }

    @Test func aSquareTurnCostsWhatOSRMsCarProfileCharges() throws {
        let map = crossingMap()
        let straight = try map.route("w", "e")
        let right = try map.route("w", "s")  // heading east, south is to the right
        let left = try map.route("w", "n")
        // The same 200 m each way: what differs is the turn at c.
        #expect(abs(straight.distanceMeters - right.distanceMeters) < 1)
        #expect(abs(straight.distanceMeters - left.distanceMeters) < 1)
        let rightCost = Double(right.durationMilliseconds - straight.durationMilliseconds) / 1000
        let leftCost = Double(left.durationMilliseconds - straight.durationMilliseconds) / 1000
        #expect(abs(rightCost - (Self.osrmTurnSeconds(90) - Self.osrmTurnSeconds(0))) < 0.05)
        #expect(abs(leftCost - (Self.osrmTurnSeconds(-90) - Self.osrmTurnSeconds(0))) < 0.05)
        #expect(rightCost > 1.9 && rightCost < 2.3)
        #expect(leftCost > 7.0 && leftCost < 7.6)
        // Straight on costs next to nothing: the 200 m at 25 km/h.
        #expect(abs(Double(straight.durationMilliseconds) - 200 / (25 / 3.6) * 1000) < 50)
        // The same map without turn costs: the three routes take the same time.
        var free = AsciiMap(Self.crossing, spacingMeters: 25)
        for way in ["wce", "nc", "cs"] { free.way(way) }
        let times = try ["e", "s", "n"].map { try free.route("w", $0).durationMilliseconds }
        #expect(Set(times).count == 1)
    }

    @Test func aBendAndAJointBetweenTwoWaysCostNothing() throws {
        var map = AsciiMap(
            """
            a   b

                c
            """, spacingMeters: 50, turnCosts: true)
        map.way("ab")
        map.way("bc")  // b: where one way ends and the next begins, with a square bend
        let route = try map.route("a", "c")
        #expect(abs(Double(route.durationMilliseconds) - map.length("abc") / (25 / 3.6) * 1000) < 5)
    }

    /// From a to t: east along a-x then left at x into x-t (100 m at 25 km/h, 14.4 s, and the left turn), or the
    /// slower street a-b-t round the other side (100 m at 0.8 x 22 km/h, 20.5 s) with a bend but no junction.
    static let leftOrRound = """
        b       t

        a       x       z
        """

    @Test func takesASlowerStreetWithoutATurnOverALeftTurn() throws {
        for turnCosts in [true, false] {
            var map = AsciiMap(Self.leftOrRound, spacingMeters: 10, turnCosts: turnCosts)
            map.way("axz")
            map.way("xt")
            map.way("abt", ["maxspeed": "22"])
            let route = try map.route("a", "t")
            let viaB = route.geometry.contains { $0.distanceMeters(to: map.at("b")) < 0.5 }
            // With turn costs the left turn (7.3 s) makes a-x-t the slower (21.7 s against 20.5 s).
            #expect(viaB == turnCosts, "turn costs \(turnCosts)")
        }
    }

    /// A junction j where a one-way street arrives from the north (reached from w) and a two-way street runs
    /// east-west.
    static let oneWayInto = """
            n

        w   j   e
        """

    @Test func aRouteEndingOnAJunctionArrivesByAnyRoadThere() throws {
        var map = AsciiMap(Self.oneWayInto, spacingMeters: 50, turnCosts: true)
        map.way("wje")
        map.way("nj", ["oneway": "yes"])
        map.way("wn")
        let graph = map.graph()
        let snapper = Snapper(graph: graph)
        var dijkstra = DijkstraRouter(graph: graph)
        let router = FastRouter(index: FastRouterIndex(graph: ContractionGraph(roadGraph: graph)), graph: graph)
        for from in ["e", "w", "n"] as [Character] {
            let endpoints = try snapper.endpoints(from: map.at(from), to: map.at("j"))
            let route = try dijkstra.route(endpoints)
            // Straight there, whichever of the three pieces the junction's point was snapped to.
            #expect(abs(route.distanceMeters - map.length("\(from)j")) < 1, "from \(from)")
            #expect(route.geometry.dropLast().allSatisfy { $0.distanceMeters(to: map.at("j")) > 1 }, "from \(from)")
            let fast = try router.route(endpoints)
            #expect(fast.durationMilliseconds == route.durationMilliseconds, "from \(from)")
            // And leaving from the junction: straight away along any road.
            let to: Character = from == "n" ? "e" : from  // n is reached from w only
            let back = try dijkstra.route(try snapper.endpoints(from: map.at("j"), to: map.at(to)))
            #expect(abs(back.distanceMeters - map.length("j\(to)")) < 1, "to \(to)")
        }
    }

    /// A junction k where one one-way street arrives (from c) and two leave (to a and to b): one graph node.
    static let oneWaysOut = """
        a   k   b

            c
        """

    @Test func aRouteFromAJunctionWhereOneWayStreetsStartTakesTheOneItNeeds() throws {
        var map = AsciiMap(Self.oneWaysOut, spacingMeters: 50, turnCosts: true)
        map.way("ka", ["oneway": "yes"])
        map.way("kb", ["oneway": "yes"])
        map.way("ck", ["oneway": "yes"])
        map.way("ac")
        map.way("bc")
        // Whichever of the three pieces k's point was snapped to, the route leaves along the one it needs.
        for to in ["a", "b"] as [Character] {
            #expect(abs(try map.route("k", to).distanceMeters - map.length("k\(to)")) < 1, "to \(to)")
        }
    }

    @Test func aGraphFileKeepsEachEdgesTurn() throws {
        let map = crossingMap()
        let graph = map.graph()
        #expect(graph.edgeTurnsMilliseconds.count == graph.edgeCount)
        #expect(graph.edgeTurnsMilliseconds.contains { $0 > 7_000 })
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("turns-\(UUID()).graph").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try graph.write(to: path)
        let loaded = try RoadGraph.load(from: path)
        #expect(loaded.edgeTurnsMilliseconds == graph.edgeTurnsMilliseconds)
        #expect(loaded.edgeDurationsMilliseconds == graph.edgeDurationsMilliseconds)
        // Without turn costs the graph has no turn array and its file none either.
        var free = AsciiMap(Self.crossing, spacingMeters: 25)
        for way in ["wce", "nc", "cs"] { free.way(way) }
        #expect(free.graph().edgeTurnsMilliseconds.isEmpty)
    }

    @Test func theLimitKeepsLargeMapsNodeBased() throws {
        let map = crossingMap()
        let (split, report) = map.builder.buildReporting()
        #expect(report.costsTurns && split.nodeCount > 5)
        var builder = map.builder
        builder.turnCostJunctionLimit = 4  // the crossing has five junctions (c and four dead ends)
        let (plain, plainReport) = builder.buildReporting()
        #expect(!plainReport.costsTurns && plain.nodeCount == 5 && plain.edgeTurnsMilliseconds.isEmpty)
    }
}
