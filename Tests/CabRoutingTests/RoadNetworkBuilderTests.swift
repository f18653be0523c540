import CabGeo
import Testing

@testable import CabRouting

@Suite struct RoadNetworkBuilderTests {
    @Test func keepsOnlyJunctionsAndWayEndsAsNodes() {
        var map = AsciiMap(
            """
            a b c d
                e
            """)
        map.way("abcd")
        map.way("ce")
        map.way("ae", ["highway": "footway"])
        let graph = map.graph()
        #expect(graph.nodeCount == 4)
        #expect(Set(graph.nodeOSMIDs) == Set("acde".map(AsciiMap.nodeID)))
        #expect(graph.edgeCount == 6)
        #expect(graph.pieceCount == 3)
        // b is shape, not a node: the a-c piece carries it as geometry.
        #expect(graph.coordinates.contains(map.at("b")))
    }

    @Test func keepsThePresentRunsOfAClippedWay() {
        let map = AsciiMap("a b c d e")
        var builder = RoadNetworkBuilder()
        for char in "abde" { builder.addNode(id: AsciiMap.nodeID(char), coordinate: map.at(char)) }
        builder.addWay(id: 7, nodeIDs: "abcde".map(AsciiMap.nodeID), tags: ["highway": "primary"])
        let (graph, report) = builder.buildReporting()
        #expect(report.clippedWays == 1)
        #expect(report.routableWays == 1)
        #expect(graph.pieceCount == 2)
        #expect(graph.nodeCount == 4)
        #expect(graph.pieceWayIDs == [7, 7])
    }

    @Test func dropsAWayWithNoTwoNodesPresent() {
        var builder = RoadNetworkBuilder()
        builder.addNode(id: 1, coordinate: Coordinate(latitude: 47, longitude: 9))
        builder.addWay(id: 1, nodeIDs: [1, 2], tags: ["highway": "primary"])
        let (graph, report) = builder.buildReporting()
        #expect(graph.nodeCount == 0)
        #expect(report.emptyWays == 1)
    }

    @Test func acceptsNodesOutOfOrder() {
        var builder = RoadNetworkBuilder()
        builder.addNode(id: 9, coordinate: Coordinate(latitude: 47, longitude: 9.001))
        builder.addNode(id: 3, coordinate: Coordinate(latitude: 47, longitude: 9))
        builder.addWay(id: 1, nodeIDs: [3, 9], tags: ["highway": "primary"])
        let graph = builder.build()
        #expect(graph.edgeCount == 2)
        #expect(abs(Double(graph.edgeDistancesDm[0]) / 10 - 75.9) < 1)
    }

    @Test func countsHighwayClassesBeforeAccessAndIgnoresBrokenRestrictions() {
        var map = AsciiMap("a b c")
        map.way("ab")
        map.way("bc", ["access": "private"])
        map.way("ac", ["highway": "footway"])
        map.restriction("no_left_turn", from: "ab", via: "c", to: "bc")  // a-b does not reach c
        let report = map.builder.buildReporting().report
        #expect(report.highwayClassWays == 2)
        #expect(report.routableWays == 1)
        #expect(report.ignoredRestrictions == 1)
        #expect(report.appliedRestrictions == 0)
    }

    @Test func splitsAViaNodeOncePerIncomingEdge() {
        var map = AsciiMap(
            """
              e
            a b c
            """)
        map.way("ab")
        map.way("bc")
        map.way("be")
        map.restriction("no_left_turn", from: "ab", via: "b", to: "be")
        let graph = map.graph()
        let copies = graph.nodeOSMIDs.filter { $0 == AsciiMap.nodeID("b") }.count
        #expect(copies == 3)
        // The dead ends a, c and e are turn-aware too (connected to a restriction), split (one arrival each). Out of b's copies: 3 arrivals
        // x 2 ways out (no U-turn at b), minus the barred turn; out of the dead ends, the U-turn back to b.
        #expect(graph.nodeCount == 3 + 3)
        #expect(graph.edgeCount == 5 + 3)
        let uTurns = graph.edgeDurationsMilliseconds.indices.filter { graph.nodeOSMIDs[graph.edgeSource($0)] != 98 }
        for e in uTurns {
            let piece = graph.piece(ofEdge: e)
            let plain = graph.edges(ofPiece: piece).map { graph.edgeDurationsMilliseconds[$0] }.min()!
            #expect(graph.edgeDurationsMilliseconds[e] == plain + TravelProfile.taxi.uTurnPenaltyMilliseconds)
        }
    }
}
