import CabGeo
import CabTestSupport
import Testing

@testable import CabRouting

/// The fast router against plain Dijkstra on every shared extract (imported from the PBF): seeded random snapped
/// pairs give the same duration to the millisecond, routes are connected along the roads, and many-to-one and
/// one-to-many give what repeated one-to-one gives.
@Suite struct ExtractOracleTests {
    static let pairs = 200

    @Test(arguments: TestData.sharedExtractNames, [false, true])
    func fastRoutesEqualDijkstra(name: String, upperLabelsOnly: Bool) throws {
        let extract = SharedExtractGraph.named(name)
        let graph = extract.graph
        let index = upperLabelsOnly ? extract.upperIndex : extract.index
        #expect(index.labels?.coversEveryNode == !upperLabelsOnly)
        let router = FastRouter(index: index, graph: graph)
        var dijkstra = DijkstraRouter(graph: graph)
        let segments = RoadSegments(graph)
        let points = try extract.pointsNearRoads(count: Self.pairs + 1, seed: 31).map { try extract.snapper.snap($0) }
        var routed = 0
        for i in 0..<Self.pairs {
            let endpoints = RouteEndpoints(start: points[i], end: points[i + 1], in: graph)
            let slow = try? dijkstra.route(endpoints)
            #expect(router.durationMilliseconds(endpoints) == slow?.durationMilliseconds, "pair \(i) of \(name)")
            let fast = try? router.route(endpoints)
            #expect(fast?.durationMilliseconds == slow?.durationMilliseconds, "pair \(i) of \(name)")
            guard let fast, let slow else { continue }
            routed += 1
            #expect(abs(fast.distanceMeters - slow.distanceMeters) <= max(1, slow.distanceMeters * 0.001))
            #expect(fast.geometry.first == points[i].coordinate && fast.geometry.last == points[i + 1].coordinate)
            #expect(segments.follow(fast.geometry), "route \(i) of \(name) jumps off the road")
            let drawn = zip(fast.geometry, fast.geometry.dropFirst()).reduce(0) { $0 + $1.0.distanceMeters(to: $1.1) }
            #expect(abs(drawn - fast.distanceMeters) <= 2 + fast.distanceMeters * 0.01, "route \(i) of \(name)")
        }
        // Points snapped onto the largest strongly connected component always reach each other.
        #expect(routed == Self.pairs)
    }

    @Test(arguments: TestData.sharedExtractNames, [false, true])
    func manyToOneAndOneToManyEqualOneToOne(name: String, upperLabelsOnly: Bool) throws {
        let extract = SharedExtractGraph.named(name)
        let graph = extract.graph
        let router = FastRouter(index: upperLabelsOnly ? extract.upperIndex : extract.index, graph: graph)
        var dijkstra = DijkstraRouter(graph: graph)
        let points = try extract.pointsNearRoads(count: 105, seed: 77).map { try extract.snapper.snap($0) }
        for round in 0..<5 {
            let drivers = Array(points[(round * 21)..<(round * 21 + 20)])
            let pickup = points[round * 21 + 20]
            let oneToOne = drivers.map {
                router.durationMilliseconds(RouteEndpoints(start: $0, end: pickup, in: graph))
            }
            #expect(router.durationsMilliseconds(from: drivers, to: pickup) == oneToOne)
            // Durations alone come from the precomputed climbs below the labels; routes from the climbs' searches.
            let routed = drivers.map { try? router.route(RouteEndpoints(start: $0, end: pickup, in: graph)) }
            #expect(oneToOne == routed.map { $0?.durationMilliseconds })
            let back = drivers.map { router.durationMilliseconds(RouteEndpoints(start: pickup, end: $0, in: graph)) }
            #expect(router.durationsMilliseconds(from: pickup, to: drivers) == back)
            let coordinates = drivers.map(\.query)
            #expect(
                try router.durationsMilliseconds(from: coordinates, to: pickup.query, snappingWith: extract.snapper)
                    == oneToOne)
            if round == 0 {
                let reference = drivers.map {
                    dijkstra.durationMilliseconds(RouteEndpoints(start: $0, end: pickup, in: graph))
                }
                #expect(oneToOne == reference)
            }
        }
    }
}

/// Every segment of the road geometry, both ways, to check that a route's line only follows roads.
struct RoadSegments {
    private struct Key: Hashable {
        var a: Coordinate
        var b: Coordinate
    }
    private var keys: Set<Key> = []

    init(_ graph: RoadGraph) {
        for piece in 0..<graph.pieceCount {
            let range = graph.coordinateRange(ofPiece: piece)
            for i in range.dropLast() {
                keys.insert(Key(a: graph.coordinates[i], b: graph.coordinates[i + 1]))
                keys.insert(Key(a: graph.coordinates[i + 1], b: graph.coordinates[i]))
            }
        }
    }

    /// True when every step of `line` between its first and last step (which leave and reach snapped points in
    /// the middle of a segment) is a road segment.
    func follow(_ line: [Coordinate]) -> Bool {
        guard line.count > 3 else { return true }
        for i in 1..<(line.count - 2) where !keys.contains(Key(a: line[i], b: line[i + 1])) { return false }
        return true
    }
}
