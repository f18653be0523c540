import CabGeo
import Testing

@testable import CabRouting

/// The batched many-to-one of the fourth metro round (every driver climbed in one pass with duplicates dropped,
/// a durations-only fill, raw-pointer scans, snapping walked in Float before the Double check) against plain
/// Dijkstra and against the previous round's batch, on a drawn map whose labels cover the upper hierarchy only.
@Suite struct BatchedManyToOneFixtureTests {
    /// A small town: two avenues, cross streets, a one-way pair and a dead end, 50 m between columns.
    static let town = """
        a b c d e f g
        h i j k l m n
        o p q r s t u
        v w x y z A B
        C D E F G H I
        """

    static func townGraph() -> RoadGraph {
        var map = AsciiMap(town, spacingMeters: 50)
        map.way("abcdefg", ["highway": "secondary"])
        map.way("hijklmn")
        map.way("opqrstu", ["highway": "secondary"])
        map.way("vwxyzAB", ["oneway": "yes"])
        map.way("CDEFGHI", ["oneway": "-1"])
        map.way("ahovC")
        map.way("bipwD")
        map.way("cjqxE", ["oneway": "yes"])
        map.way("dkryF")
        map.way("elszG", ["oneway": "yes"])
        map.way("fmtAH")
        map.way("gnuB")
        return map.graph()
    }

    /// The town's nodes, a point on every segment's middle, and points 20 m off some of them: at a node several
    /// segments are exactly as near, so the snaps also check the tie rule (the lower segment wins).
    static func points(_ graph: RoadGraph) -> [Coordinate] {
        var points = graph.coordinates
        for piece in 0..<graph.pieceCount {
            let range = graph.coordinateRange(ofPiece: piece)
            for i in range.dropLast() {
                let a = graph.coordinates[i]
                let b = graph.coordinates[i + 1]
                points.append(
                    Coordinate(latitude: (a.latitude + b.latitude) / 2, longitude: (a.longitude + b.longitude) / 2))
                points.append(
                    Coordinate(
                        latitude: a.latitude * 0.7 + b.latitude * 0.3 + 0.00018,
                        longitude: a.longitude * 0.7
                            + b.longitude * 0.3))
            }
        }
        return points
    }

    @Test(arguments: [40, 120])
    func batchedManyToOneEqualsDijkstraAndThePreviousRound(entryLimit: Int) throws {
        let graph = Self.townGraph()
        let index = FastRouterIndex(
            graph: ContractionGraph(roadGraph: graph), configuration: .init(hubLabelEntryLimit: entryLimit))
        let labels = try #require(index.labels)
        #expect(!labels.coversEveryNode && labels.climbs != nil, "labels must leave the lower hierarchy out")
        let router = FastRouter(index: index, graph: graph)
        let query = try #require(router.labelQuery)
        var snapper = Snapper(graph: graph, maxDistanceMeters: 100)
        var dijkstra = DijkstraRouter(graph: graph)
        let points = Self.points(graph)
        let oneByOne = points.map { try? snapper.snap($0) }
        #expect(snapper.snap(points) == oneByOne)
        snapper.refinesAfterWalk = false
        #expect(snapper.snap(points) == oneByOne)
        snapper.refinesAfterWalk = true
        for (p, pickupCoordinate) in points.enumerated() where p % 3 == 0 {
            let pickup = try #require(oneByOne[p])
            let expected = oneByOne.map { driver in
                driver.flatMap { dijkstra.durationMilliseconds(RouteEndpoints(start: $0, end: pickup, in: graph)) }
            }
            query.climbsInline = true
            let now = try router.durationsMilliseconds(from: points, to: pickupCoordinate, snappingWith: snapper)
            #expect(now == expected, "pickup \(p)")
            query.climbsInline = false
            let before = try router.durationsMilliseconds(from: points, to: pickupCoordinate, snappingWith: snapper)
            #expect(before == now, "pickup \(p)")
            query.climbsInline = true
            // One-to-many (the pickup's side filled from its sources) after a durations-only fill.
            let snapped = oneByOne.compactMap { $0 }
            let back = snapped.map { dijkstra.durationMilliseconds(RouteEndpoints(start: pickup, end: $0, in: graph)) }
            #expect(router.durationsMilliseconds(from: pickup, to: snapped) == back)
            // A point-to-point duration and route right after a batch: the durations-only fill must not leak.
            let driver = try #require(oneByOne[(p * 7 + 3) % oneByOne.count])
            let endpoints = RouteEndpoints(start: driver, end: pickup, in: graph)
            #expect(router.durationMilliseconds(endpoints) == dijkstra.durationMilliseconds(endpoints))
            _ = try router.durationsMilliseconds(from: points, to: pickupCoordinate, snappingWith: snapper)
            #expect((try? router.route(endpoints)) == (try? dijkstra.route(endpoints)))
        }
        // A pickup off the roads (snapped in the drivers' batch, then alone for its error) is refused as alone.
        let offRoad = Coordinate(latitude: points[0].latitude + 0.5, longitude: points[0].longitude)
        #expect(throws: RoutingError.self) { try snapper.snap(offRoad) }
        do {
            _ = try router.durationsMilliseconds(from: points, to: offRoad, snappingWith: snapper)
            Issue.record("a pickup off the roads was accepted")
        } catch {
            #expect(error.code == .noRoadNearby)
        }
    }

    /// A label's hub is found by the path rebuild's search exactly where a linear search finds it, for every hub
    /// of every label and for ranks that are not hubs.
    @Test func labelEntrySearchEqualsALinearScan() throws {
        let graph = Self.townGraph()
        let index = FastRouterIndex(graph: ContractionGraph(roadGraph: graph), configuration: .init())
        let labels = try #require(index.labels)
        for direction in [labels.forward, labels.backward] {
            for rank in labels.lowestLabelledRank..<labels.nodeCount {
                let range = Int(direction.first[rank])..<Int(direction.first[rank + 1])
                for hub in Int32(rank)..<Int32(labels.nodeCount) {
                    let linear = range.first { direction.hub[$0] == hub } ?? -1
                    #expect(UpperLabelQuery.entry(of: hub, in: direction, at: rank) == linear)
                }
            }
        }
    }
}
