import CabGeo
import CabOSM
import CabRouting
import Testing

@testable import CabImport

@Suite struct RoadImportTests {
    /// a - b - c in a row, d north of b; ways 10 (a-b), 11 (b-c), 12 (b-d).
    func importSample(_ relations: [OSMRelation]) throws -> RoadImport {
        var handler = RoadImport()
        let nodes: [(Int64, Double, Double)] = [(1, 47, 9.0), (2, 47, 9.001), (3, 47, 9.002), (4, 47.001, 9.001)]
        for (id, lat, lon) in nodes {
            try handler.handle(OSMNode(id: id, coordinate: Coordinate(latitude: lat, longitude: lon)))
        }
        try handler.handle(OSMWay(id: 10, nodeIDs: [1, 2], tags: ["highway": "residential"]))
        try handler.handle(OSMWay(id: 11, nodeIDs: [2, 3], tags: ["highway": "residential"]))
        try handler.handle(OSMWay(id: 12, nodeIDs: [2, 4], tags: ["highway": "residential"]))
        try handler.handle(OSMWay(id: 13, nodeIDs: [1, 4], tags: ["highway": "footway"]))
        try handler.handle(OSMWay(id: 14, nodeIDs: [1, 3], tags: ["building": "yes"]))
        for r in relations { try handler.handle(r) }
        return handler
    }

    func restriction(_ tags: [String: String], via: OSMMember = OSMMember(type: .node, ref: 2, role: "via"))
        -> OSMRelation
    {
        OSMRelation(
            id: 99,
            members: [OSMMember(type: .way, ref: 10, role: "from"), via, OSMMember(type: .way, ref: 12, role: "to")],
            tags: tags.merging(["type": "restriction"]) { $1 })
    }

    @Test func turnsAViaNodeRestrictionIntoGraphStructure() throws {
        let handler = try importSample([restriction(["restriction": "no_left_turn"])])
        #expect(handler.notes.restrictions == 1)
        let (graph, report) = handler.build()
        #expect(report.appliedRestrictions == 1)
        #expect(report.highwayClassWays == 3)
        #expect(graph.nodeOSMIDs.filter { $0 == 2 }.count == 3)
        let snapper = Snapper(graph: graph)
        var router = DijkstraRouter(graph: graph)
        let endpoints = try snapper.endpoints(
            from: Coordinate(latitude: 47, longitude: 9.0), to: Coordinate(latitude: 47.001, longitude: 9.001))
        // Barred from turning at b, the car turns round at c (a dead end) and comes back: 3 x 76 m + 111 m.
        #expect(try router.route(endpoints).distanceMeters > 300)
    }

    @Test func passesViaWaysOnAndSkipsOtherVehiclesWithACount() throws {
        let handler = try importSample([
            restriction(["restriction": "no_left_turn"], via: OSMMember(type: .way, ref: 11, role: "via")),
            restriction(["restriction:hgv": "no_left_turn"]),
            restriction(["restriction": "no_left_turn", "except": "psv"]),
            restriction(["restriction": "give_way"]),
            OSMRelation(id: 5, members: [], tags: ["type": "multipolygon"]),
        ])
        #expect(handler.notes.viaWayRestrictions == 1)
        #expect(handler.notes.otherVehicleRestrictions == 2)
        #expect(handler.notes.malformedRestrictions == 1)
        #expect(handler.notes.restrictions == 1)
        // From a-b via b-c onto b-d: b-d does not leave c, the end of the chain, so nothing is guessed (built
        // without turn costs, which would split every junction: then the node count shows nothing was split).
        var plain = handler
        plain.turnCostJunctionLimit = -1
        let (graph, report) = plain.build()
        #expect(report.brokenViaChains == 1 && report.appliedRestrictions == 0)
        #expect(graph.nodeCount == 4)
    }
}
