import CabGeo
import CabRoutingBench
import Testing

@testable import CabRouting

/// The many-to-one query dispatch ranks drivers with must agree with one point-to-point Dijkstra per driver.
@Suite struct DijkstraManyToOneTests {
    @Test func agreesWithPointToPointDijkstraOnARandomCity() throws {
        let graph = SyntheticCity.grid(rows: 30, cols: 30, seed: 11)
        let snapper = Snapper(graph: graph)
        var oneByOne = DijkstraRouter(graph: graph)
        var many = DijkstraManyToOne(graph: graph)
        var random = SplitMix64(seed: 3)
        let box = BoundingBox(enclosing: graph.nodeCoordinates)!
        func point() throws -> SnappedPoint {
            try snapper.snap(
                Coordinate(
                    latitude: box.southWest.latitude + random.nextDouble()
                        * (box.northEast.latitude - box.southWest.latitude),
                    longitude: box.southWest.longitude + random.nextDouble()
                        * (box.northEast.longitude - box.southWest.longitude)))
        }
        var compared = 0
        for _ in 0..<10 {
            let end = try point()
            let starts = try (0..<20).map { _ in try point() }
            let answers = many.durationsMilliseconds(from: starts, to: end)
            for (start, answer) in zip(starts, answers) {
                let expected = oneByOne.durationMilliseconds(RouteEndpoints(start: start, end: end, in: graph))
                #expect(answer == expected)
                compared += expected == nil ? 0 : 1
            }
        }
        #expect(compared > 150)
        #expect(many.durationsMilliseconds(from: [], to: try point()).isEmpty)
    }
}
