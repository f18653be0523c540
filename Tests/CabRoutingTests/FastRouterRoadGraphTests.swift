import CabGeo
import CabRoutingBench
import CabTestSupport
import Foundation
import Testing

@testable import CabRouting

/// The fast router against `DijkstraRouter` on road graphs: snapped points, split-node turn restrictions,
/// the direct leg on a shared piece, geometry.
@Suite struct FastRouterRoadGraphTests {
    static func randomPoints(_ graph: RoadGraph, count: Int, seed: UInt64) -> [Coordinate] {
        var random = SplitMix64(seed: seed)
        let box = BoundingBox(enclosing: graph.coordinates)!
        return (0..<count).map { _ in
            Coordinate(
                latitude: box.southWest.latitude + random.nextDouble()
                    * (box.northEast.latitude - box.southWest.latitude),
                longitude: box.southWest.longitude + random.nextDouble()
                    * (box.northEast.longitude - box.southWest.longitude))
        }
    }

    /// Checks routes, durations and many-to-one on `graph` against plain Dijkstra for `pairs` random pairs.
    static func checkAgainstDijkstra(_ graph: RoadGraph, pairs: Int, seed: UInt64) throws {
        let contraction = ContractionGraph(roadGraph: graph)
        let index = FastRouterIndex(graph: contraction)
        #expect(index.labels != nil)
        let router = FastRouter(index: index, graph: graph)
        let snapper = Snapper(graph: graph)
        var dijkstra = DijkstraRouter(graph: graph)
        let points = randomPoints(graph, count: pairs + 1, seed: seed).map { try? snapper.snap($0) }
        var compared = 0
        for i in 0..<pairs {
            guard let a = points[i], let b = points[i + 1] else { continue }
            let endpoints = RouteEndpoints(start: a, end: b, in: graph)
            let expected = dijkstra.durationMilliseconds(endpoints)
            #expect(router.durationMilliseconds(endpoints) == expected)
            let slow = try? dijkstra.route(endpoints)
            let fast = try? router.route(endpoints)
            #expect(fast?.durationMilliseconds == slow?.durationMilliseconds)
            if let fast, let slow {
                #expect(abs(fast.distanceMeters - slow.distanceMeters) < max(1, slow.distanceMeters * 0.01))
                #expect(fast.geometry.first == a.coordinate && fast.geometry.last == b.coordinate)
                compared += 1
            }
        }
        #expect(compared > pairs / 2)
        // Many-to-one (drivers to a pickup) and one-to-many equal repeated one-to-one.
        let drivers = points.prefix(20).compactMap { $0 }
        if let pickup = points.last ?? nil {
            let many = router.durationsMilliseconds(from: drivers, to: pickup)
            #expect(
                many == drivers.map { dijkstra.durationMilliseconds(RouteEndpoints(start: $0, end: pickup, in: graph)) }
            )
            let reverse = router.durationsMilliseconds(from: pickup, to: drivers)
            #expect(
                reverse
                    == drivers.map { dijkstra.durationMilliseconds(RouteEndpoints(start: pickup, end: $0, in: graph)) })
            let matrix = router.matrix(from: Array(drivers.prefix(4)), to: Array(drivers.prefix(4)))
            for (i, row) in matrix.enumerated() {
                for (j, cell) in row.enumerated() {
                    let endpoints = RouteEndpoints(start: drivers[i], end: drivers[j], in: graph)
                    #expect(cell.map { Int($0.durationMilliseconds) } == dijkstra.durationMilliseconds(endpoints))
                }
            }
        }
    }

    @Test(arguments: [5, 6] as [UInt64])
    func syntheticCityWithRestrictionsEqualsDijkstra(seed: UInt64) throws {
        let graph = SyntheticCity.grid(rows: 25, cols: 30, seed: seed)
        try Self.checkAgainstDijkstra(graph, pairs: 150, seed: seed)
    }

    /// Labels on the upper hierarchy only, with precomputed climbs: the batched many-to-one and one-to-many
    /// (snapped points, and coordinates snapped all together, some of them off the map) equal plain Dijkstra for
    /// every driver, and the batched snap equals snapping one point at a time.
    @Test(arguments: [(7, 3_000), (8, 12_000)] as [(UInt64, Int)])
    func batchedManyToOneBelowTheLabelsEqualsDijkstra(seed: UInt64, entryLimit: Int) throws {
        let graph = SyntheticCity.grid(rows: 25, cols: 30, seed: seed)
        let index = FastRouterIndex(
            graph: ContractionGraph(roadGraph: graph), configuration: .init(hubLabelEntryLimit: entryLimit))
        let labels = try #require(index.labels)
        #expect(!labels.coversEveryNode && labels.climbs != nil)
        let router = FastRouter(index: index, graph: graph)
        let snapper = Snapper(graph: graph, maxDistanceMeters: 30)
        var dijkstra = DijkstraRouter(graph: graph)
        // Random points over the bounding box: some are more than 30 m from a road (nil), one is invalid.
        var coordinates = Self.randomPoints(graph, count: 101, seed: seed)
        coordinates[17] = Coordinate(latitude: 95, longitude: 0)
        let batch = snapper.snap(coordinates)
        #expect(batch == coordinates.map { try? snapper.snap($0) })
        let pickup = try #require(batch.last ?? nil)
        let drivers = Array(coordinates.prefix(100))
        let expected = batch.prefix(100).map { point in
            point.flatMap { dijkstra.durationMilliseconds(RouteEndpoints(start: $0, end: pickup, in: graph)) }
        }
        #expect(expected.contains(nil) && expected.contains { $0 != nil })
        #expect(try router.durationsMilliseconds(from: drivers, to: pickup.query, snappingWith: snapper) == expected)
        let snapped = batch.prefix(100).compactMap { $0 }
        let toPickup = snapped.map { dijkstra.durationMilliseconds(RouteEndpoints(start: $0, end: pickup, in: graph)) }
        #expect(router.durationsMilliseconds(from: snapped, to: pickup) == toPickup)
        let back = snapped.map { dijkstra.durationMilliseconds(RouteEndpoints(start: pickup, end: $0, in: graph)) }
        #expect(router.durationsMilliseconds(from: pickup, to: snapped) == back)
    }

    @Test func pointsOnTheSamePieceUseTheDirectLeg() throws {
        let graph = SyntheticCity.grid(rows: 5, cols: 5, seed: 9)
        let router = FastRouter(index: FastRouterIndex(graph: ContractionGraph(roadGraph: graph)), graph: graph)
        var dijkstra = DijkstraRouter(graph: graph)
        let piece = graph.coordinateRange(ofPiece: 0)
        let a = graph.coordinates[piece.lowerBound]
        let b = graph.coordinates[piece.lowerBound + 1]
        let p = Coordinate(
            latitude: a.latitude * 0.7 + b.latitude * 0.3, longitude: a.longitude * 0.7 + b.longitude * 0.3)
        let q = Coordinate(
            latitude: a.latitude * 0.4 + b.latitude * 0.6, longitude: a.longitude * 0.4 + b.longitude * 0.6)
        let snapper = Snapper(graph: graph)
        for endpoints in [try snapper.endpoints(from: p, to: q), try snapper.endpoints(from: q, to: p)] {
            #expect(router.durationMilliseconds(endpoints) == dijkstra.durationMilliseconds(endpoints))
            #expect((try? router.route(endpoints)) == (try? dijkstra.route(endpoints)))
        }
    }

    @Test func indexFileRoundTripsAndRefusesAnotherMap() throws {
        let graph = SyntheticCity.grid(rows: 8, cols: 8, seed: 1)
        let contraction = ContractionGraph(roadGraph: graph)
        let index = FastRouterIndex(graph: contraction)
        let directory = try TestData.temporaryDirectory("ch")
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("routing.ch").path
        try index.write(to: path)
        let loaded = try FastRouterIndex.load(from: path, expectedFingerprint: contraction.fingerprint)
        #expect(loaded.fileBytes() == index.fileBytes())
        let other = ContractionGraph(roadGraph: SyntheticCity.grid(rows: 8, cols: 8, seed: 2))
        let error = #expect(throws: RoutingError.self) {
            try FastRouterIndex.load(from: path, expectedFingerprint: other.fingerprint)
        }
        #expect(error?.code == .wrongMap)
        #expect(error?.message.hasPrefix(path) == true)
    }
}
