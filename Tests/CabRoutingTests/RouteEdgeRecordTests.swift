import CabGeo
import CabRoutingBench
import Foundation
import Testing

@testable import CabRouting

/// Routes built from the edges' route records (`RoadGraph.routeEdges`) are those built from the graph's arrays,
/// for graphs built from a map and read back from their file.
@Suite struct RouteEdgeRecordTests {
    static func checkRecordsGiveTheSameRoutes(_ graph: RoadGraph, seed: UInt64) throws {
        let router = FastRouter(index: FastRouterIndex(graph: ContractionGraph(roadGraph: graph)), graph: graph)
        let snapper = Snapper(graph: graph)
        let points = FastRouterRoadGraphTests.randomPoints(graph, count: 41, seed: seed).map { try? snapper.snap($0) }
        var compared = 0
        for i in 0..<40 {
            guard let a = points[i], let b = points[i + 1] else { continue }
            let endpoints = RouteEndpoints(start: a, end: b, in: graph)
            guard
                let found = router.route(
                    from: endpoints.sources.map(ContractionSeed.init), to: endpoints.targets.map(ContractionSeed.init))
            else { continue }
            let source = endpoints.sources[found.sourceSeed]
            let target = endpoints.targets[found.targetSeed]
            let fromRecords = graph.route(
                endpoints, source: source, edges: found.edges, target: target, readsRecords: true)
            let fromArrays = graph.route(
                endpoints, source: source, edges: found.edges, target: target, readsRecords: false)
            #expect(fromRecords.durationMilliseconds == fromArrays.durationMilliseconds)
            #expect(fromRecords.distanceMeters == fromArrays.distanceMeters)
            #expect(fromRecords.geometry == fromArrays.geometry)
            #expect(fromRecords.geometry.count > 2)
            compared += 1
        }
        #expect(compared > 20)
    }

    @Test func builtAndLoadedGraphsHaveRecordsThatGiveTheSameRoutes() throws {
        let graph = SyntheticCity.grid(rows: 40, cols: 40, seed: 3)
        #expect(graph.routeEdges?.count == graph.edgeCount)
        try Self.checkRecordsGiveTheSameRoutes(graph, seed: 1)
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("records-\(UUID()).graph").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try graph.write(to: path)
        let loaded = try RoadGraph.load(from: path)
        #expect(loaded.routeEdges?.count == loaded.edgeCount)
        try Self.checkRecordsGiveTheSameRoutes(loaded, seed: 2)
    }

    /// Every record holds its edge's piece range, direction, duration and length.
    @Test func recordsHoldWhatTheArraysSay() {
        let graph = SyntheticCity.grid(rows: 20, cols: 20, seed: 4)
        guard let records = graph.routeEdges else {
            Issue.record("a built graph without route records")
            return
        }
        for edge in 0..<graph.edgeCount {
            let record = records[edge]
            #expect(record.coordinateRange == graph.coordinateRange(ofPiece: graph.piece(ofEdge: edge)))
            #expect(record.runsBackwards == graph.edgeRunsBackwards(edge))
            #expect(record.durationMilliseconds == graph.edgeDurationsMilliseconds[edge])
            #expect(record.distanceDm == graph.edgeDistancesDm[edge])
        }
    }
}
