import CabGeo
import CabRoutingBench
import Testing

@testable import CabRouting

@Suite struct SyntheticCityTests {
    @Test func isReproducibleFromItsSeed() {
        let a = SyntheticCity.grid(rows: 20, cols: 30, seed: 42)
        let b = SyntheticCity.grid(rows: 20, cols: 30, seed: 42)
        let c = SyntheticCity.grid(rows: 20, cols: 30, seed: 43)
        #expect(a.edgeTargets == b.edgeTargets && a.edgeDurationsMilliseconds == b.edgeDurationsMilliseconds)
        #expect(a.edgeDurationsMilliseconds != c.edgeDurationsMilliseconds)
    }

    @Test func isMostlyOneStronglyConnectedCityWithRestrictions() {
        let (graph, report) = SyntheticCity.gridInput(rows: 40, cols: 40, seed: 1).buildReporting()
        #expect(graph.largestComponentSize > graph.nodeCount * 8 / 10)
        #expect(graph.largestComponentSize < graph.nodeCount)  // missing blocks leave some corners cut off
        #expect(report.appliedRestrictions > 0)
        #expect(Set(graph.edgeDurationsMilliseconds).count > 10)
    }

    @Test func routesBetweenRandomPointsAreFiniteAndEndWhereAsked() throws {
        let graph = SyntheticCity.grid(rows: 30, cols: 30, seed: 5)
        let snapper = Snapper(graph: graph)
        var router = DijkstraRouter(graph: graph)
        var random = SplitMix64(seed: 9)
        let box = BoundingBox(enclosing: graph.nodeCoordinates)!
        for _ in 0..<50 {
            func point() -> Coordinate {
                Coordinate(
                    latitude: box.southWest.latitude + random.nextDouble()
                        * (box.northEast.latitude - box.southWest.latitude),
                    longitude: box.southWest.longitude + random.nextDouble()
                        * (box.northEast.longitude - box.southWest.longitude))
            }
            let endpoints = try snapper.endpoints(from: point(), to: point())
            let route = try router.route(endpoints)
            #expect(route.durationMilliseconds >= 0 && route.distanceMeters.isFinite)
            #expect(route.geometry.first == endpoints.start.coordinate)
            #expect(route.geometry.last == endpoints.end.coordinate || route.geometry.count == 1)
            // Driving at most 65 km/h, a route cannot beat the straight line by more than rounding.
            let crow = endpoints.start.coordinate.distanceMeters(to: endpoints.end.coordinate)
            #expect(route.distanceMeters >= crow - 1)
            #expect(route.durationSeconds >= crow / (65 / 3.6) - 0.01)
        }
    }

    @Test func dijkstraMatchesABruteForceOracleOnSmallGraphs() throws {
        // Bellman-Ford from each source over the same arrays: the seeds and the search must agree to the ms.
        let graph = SyntheticCity.gridInput(rows: 6, cols: 7, seed: 11, restrictionShare: 0.3).build()
        #expect(graph.nodeCount > 42, "some crossings are split by restrictions")
        var router = DijkstraRouter(graph: graph)
        for source in stride(from: 0, to: graph.nodeCount, by: 5) {
            var best = [Int](repeating: .max, count: graph.nodeCount)
            best[source] = 0
            var changed = true
            while changed {
                changed = false
                for e in 0..<graph.edgeCount where best[graph.edgeSource(e)] != .max {
                    let c = best[graph.edgeSource(e)] + Int(graph.edgeDurationsMilliseconds[e])
                    if c < best[graph.edgeTarget(e)] {
                        best[graph.edgeTarget(e)] = c
                        changed = true
                    }
                }
            }
            for target in 0..<graph.nodeCount {
                let seedS = RouteSeed(node: source, costMilliseconds: 0, distanceMeters: 0, isReversed: false)
                let seedT = RouteSeed(node: target, costMilliseconds: 0, distanceMeters: 0, isReversed: false)
                let path = router.shortestPath(from: [seedS], to: [seedT])
                #expect(path?.costMilliseconds == (best[target] == .max ? nil : best[target]))
                if let path {
                    #expect(
                        path.edges.reduce(0) { $0 + Int(graph.edgeDurationsMilliseconds[$1]) } == path.costMilliseconds)
                }
            }
        }
    }

    @Test func benchmarkPairsAreReproducibleAndRoutable() {
        let graph = SyntheticCity.grid(rows: 15, cols: 15, seed: 2)
        let pairs = DijkstraBenchmark.randomPairs(in: graph, count: 20, seed: 4)
        #expect(pairs == DijkstraBenchmark.randomPairs(in: graph, count: 20, seed: 4))
        let result = DijkstraBenchmark.run(graph: graph, pairs: pairs)
        #expect(result.routedPairs == 20 && result.unroutablePairs == 0)
        #expect(result.durationsMilliseconds.allSatisfy { ($0 ?? -1) >= 0 })
    }
}
