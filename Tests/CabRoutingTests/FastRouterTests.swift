import CabGeo
import CabRoutingBench
import Testing

@testable import CabRouting

@Suite struct FastRouterTests {
    /// Index configurations: no labels, labels on every node, labels on the upper hierarchy only (a budget of a
    /// few hundred entries leaves most of a 250-node graph unlabelled, a larger one only its bottom).
    static let configurations: [FastRouterIndex.Configuration] = [
        .init(buildsHubLabels: false), .init(), .init(hubLabelEntryLimit: 300), .init(hubLabelEntryLimit: 1_500),
    ]

    /// With and without hub labels, and with labels on the upper hierarchy only, every answer equals the oracle,
    /// and every route is a chain of edges from a source seed to a target seed that takes that long.
    @Test(arguments: [11, 12, 13] as [UInt64], 0..<4)
    func durationsAndRoutesEqualDijkstra(seed: UInt64, configuration: Int) throws {
        let graph = ContractionTestGraphs.random(nodes: 250, parts: 2, seed: seed)
        let index = FastRouterIndex(graph: graph, configuration: Self.configurations[configuration])
        #expect((index.labels != nil) == (configuration > 0))
        if configuration >= 2 { #expect(index.labels?.coversEveryNode == false) }
        let router = FastRouter(index: index)
        var rng = SeededGenerator(seed: seed)
        for _ in 0..<100 {
            let source = ContractionTestGraphs.randomEndpoints(in: graph, source: true, using: &rng)
            let target = ContractionTestGraphs.randomEndpoints(in: graph, source: false, using: &rng)
            let expected = ContractionTestGraphs.duration(graph, from: source, to: target)
            let fast = router.duration(from: source, to: target)
            #expect(fast?.durationMilliseconds ?? .max == expected)
            let route = router.route(from: source, to: target)
            #expect(route?.durationMilliseconds ?? .max == expected)
            if let fast, let route {
                // Label lengths and unpacked lengths may follow different equally fast paths; on these graphs
                // ties are rare, so they agree to rounding almost always. Check only that both are sane.
                #expect(fast.lengthMeters >= 0 && route.lengthMeters >= 0)
                var node = source[route.sourceSeed].node
                var driven = source[route.sourceSeed].durationMilliseconds
                for edge in route.edges {
                    #expect(graph.edges[edge].from == node, "the route's edges do not join up")
                    node = graph.edges[edge].to
                    driven += graph.edges[edge].durationMilliseconds
                }
                #expect(node == target[route.targetSeed].node)
                #expect(driven + target[route.targetSeed].durationMilliseconds == route.durationMilliseconds)
            }
        }
    }

    @Test func manyToOneOneToManyAndMatrixEqualRepeatedOneToOne() {
        let graph = ContractionTestGraphs.random(nodes: 300, parts: 2, seed: 21)
        for configuration in Self.configurations {
            let router = FastRouter(index: FastRouterIndex(graph: graph, configuration: configuration))
            var rng = SeededGenerator(seed: 22)
            for _ in 0..<10 {
                let drivers = (0..<20).map { _ in
                    ContractionTestGraphs.randomEndpoints(in: graph, source: true, using: &rng)
                }
                let pickup = ContractionTestGraphs.randomEndpoints(in: graph, source: false, using: &rng)
                let many = router.durations(from: drivers, to: pickup).map { $0?.durationMilliseconds ?? .max }
                let oracle = drivers.map { ContractionTestGraphs.duration(graph, from: $0, to: pickup) }
                #expect(many == oracle)
                #expect(many == drivers.map { router.duration(from: $0, to: pickup)?.durationMilliseconds ?? .max })

                let reverse = router.durations(from: pickup, to: drivers).map { $0?.durationMilliseconds ?? .max }
                #expect(reverse == drivers.map { ContractionTestGraphs.duration(graph, from: pickup, to: $0) })
            }
            let points = (0..<6).map { _ in ContractionTestGraphs.randomEndpoints(in: graph, source: true, using: &rng)
            }
            let matrix = router.matrix(from: points, to: points)
            for i in points.indices {
                for j in points.indices {
                    #expect(
                        matrix[i][j]?.durationMilliseconds ?? .max == router.duration(from: points[i], to: points[j])?
                            .durationMilliseconds
                            ?? .max)
                }
            }
        }
    }

    @Test func routeGeometryFollowsTheNodes() throws {
        // 0 → 1 → 2 along a line, and a slow direct edge 0 → 2.
        let graph = ContractionGraph(
            nodeCount: 3,
            edges: [
                .init(from: 0, to: 1, durationMilliseconds: 1000, lengthMeters: 10),
                .init(from: 1, to: 2, durationMilliseconds: 1000, lengthMeters: 10),
                .init(from: 0, to: 2, durationMilliseconds: 5000, lengthMeters: 15),
            ])
        let coordinates = (0..<3).map { Coordinate(latitude: 47, longitude: 9.5 + Double($0) / 1000) }
        let router = FastRouter(index: FastRouterIndex(graph: graph), nodeCoordinates: coordinates)
        let route = try #require(
            router.route(from: [.init(node: 0)], to: [.init(node: 2, durationMilliseconds: 7, lengthMeters: 1)]))
        #expect(route.durationMilliseconds == 2007)
        #expect(route.lengthMeters == 21)
        #expect(route.edges == [0, 1])
        #expect(route.geometry == coordinates)
        #expect(router.route(from: [.init(node: 2)], to: [.init(node: 0)]) == nil)
        #expect(router.durations(from: [[.init(node: 2)], [.init(node: 1)]], to: [.init(node: 0)]) == [nil, nil])
    }

    /// On a grid over budget, labels cover the top of the hierarchy only; durations and routes still equal the
    /// oracle from every kind of node (labelled, unlabelled, one of each).
    @Test func gridLabelsOverBudgetCoverTheUpperHierarchy() throws {
        let graph = ContractionGraph(roadGraph: SyntheticCity.grid(rows: 30, cols: 30, seed: 3))
        let index = FastRouterIndex(graph: graph, configuration: .init(hubLabelEntryLimit: 5_000))
        let labels = try #require(index.labels)
        #expect(!labels.coversEveryNode && labels.labelledNodeCount > 0 && labels.entryCount <= 5_000)
        let router = FastRouter(index: index)
        for source in stride(from: 0, to: graph.nodeCount, by: 89) {
            let sources = [ContractionSeed(node: source)]
            let oracle = ContractionTestGraphs.dijkstra(graph, from: sources)
            for target in stride(from: 1, to: graph.nodeCount, by: 37) {
                let seeds = [ContractionSeed(node: target)]
                #expect(router.duration(from: sources, to: seeds)?.durationMilliseconds ?? .max == oracle[target])
                #expect(router.route(from: sources, to: seeds)?.durationMilliseconds ?? .max == oracle[target])
            }
        }
    }

    /// Below the labels, durations read each node's precomputed climb instead of searching: many-to-one and
    /// one-to-many from two-seed endpoints (as snapped points give) still equal the oracle, and no scan searches.
    @Test(arguments: [5_000, 20_000])
    func precomputedClimbsAnswerManyToOneWithoutSearching(entryLimit: Int) throws {
        let graph = ContractionGraph(roadGraph: SyntheticCity.grid(rows: 30, cols: 30, seed: 7))
        let index = FastRouterIndex(graph: graph, configuration: .init(hubLabelEntryLimit: entryLimit))
        let labels = try #require(index.labels)
        #expect(!labels.coversEveryNode)
        let climbs = try #require(labels.climbs)
        #expect(climbs.forward.first.count == labels.lowestLabelledRank + 1)
        let router = FastRouter(index: index)
        let query = try #require(router.labelQuery)
        var rng = SeededGenerator(seed: UInt64(entryLimit))
        for _ in 0..<10 {
            let drivers = (0..<20).map { _ in
                ContractionTestGraphs.randomEndpoints(in: graph, source: true, using: &rng)
            }
            let pickup = ContractionTestGraphs.randomEndpoints(in: graph, source: false, using: &rng)
            let before = query.statistics.searches
            let many = router.durations(from: drivers, to: pickup).map { $0?.durationMilliseconds ?? .max }
            // One search at most: the pickup's fill.
            #expect(query.statistics.searches - before <= 1)
            #expect(many == drivers.map { ContractionTestGraphs.duration(graph, from: $0, to: pickup) })
            let reverse = router.durations(from: pickup, to: drivers).map { $0?.durationMilliseconds ?? .max }
            #expect(reverse == drivers.map { ContractionTestGraphs.duration(graph, from: pickup, to: $0) })
            let searches = query.statistics.searches
            for driver in drivers {
                let expected = ContractionTestGraphs.duration(graph, from: driver, to: pickup)
                #expect(router.duration(from: driver, to: pickup)?.durationMilliseconds ?? .max == expected)
            }
            #expect(query.statistics.searches == searches, "point-to-point durations search")
        }
    }
}
