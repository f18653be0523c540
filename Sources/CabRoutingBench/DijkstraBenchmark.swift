import CabGeo
import CabRouting

/// The baseline for routing benchmarks: plain Dijkstra on seeded random pairs, timed per query.
public enum DijkstraBenchmark {
    /// What a run measured.
    public struct Result: Sendable, Hashable {
        /// Pairs that had a route.
        public var routedPairs: Int
        /// Pairs without one.
        public var unroutablePairs: Int
        /// Median time per query in microseconds (duration only, no geometry).
        public var medianMicroseconds: Double
        /// 90th-percentile time per query in microseconds.
        public var p90Microseconds: Double
        /// The duration found for every pair (nil when unroutable), for checking faster engines against.
        public var durationsMilliseconds: [Int?]
    }

    /// `count` random pairs of nodes of the largest component, as endpoints at those nodes, reproducible from
    /// `seed`: the same pairs a faster engine should be timed on.
    public static func randomPairs(in graph: RoadGraph, count: Int, seed: UInt64) -> [RouteEndpoints] {
        let candidates = (0..<graph.nodeCount).filter { graph.nodeInLargestComponent[$0] }
        guard !candidates.isEmpty else { return [] }
        let snapper = Snapper(graph: graph)
        var random = SplitMix64(seed: seed)
        var pairs: [RouteEndpoints] = []
        while pairs.count < count {
            let a = candidates[Int(random.next() % UInt64(candidates.count))]
            let b = candidates[Int(random.next() % UInt64(candidates.count))]
            // A node of the component always has a road under it, so snapping cannot fail.
            guard let from = try? snapper.snap(graph.nodeCoordinates[a]),
                let to = try? snapper.snap(graph.nodeCoordinates[b])
            else { preconditionFailure("a node of the largest component has no road under it") }
            pairs.append(RouteEndpoints(start: from, end: to, in: graph))
        }
        return pairs
    }

    /// Times plain Dijkstra on `pairs`, one thread.
    public static func run(graph: RoadGraph, pairs: [RouteEndpoints]) -> Result {
        var router = DijkstraRouter(graph: graph)
        var times: [Double] = []
        var durations: [Int?] = []
        let clock = ContinuousClock()
        for endpoints in pairs {
            var found: Int? = nil
            let elapsed = clock.measure { found = router.durationMilliseconds(endpoints) }
            times.append(Double(elapsed.components.attoseconds) / 1e12 + Double(elapsed.components.seconds) * 1e6)
            durations.append(found)
        }
        times.sort()
        let routed = durations.compactMap { $0 }.count
        return Result(
            routedPairs: routed, unroutablePairs: durations.count - routed,
            medianMicroseconds: times.isEmpty ? 0 : times[times.count / 2],
            p90Microseconds: times.isEmpty ? 0 : times[times.count * 9 / 10], durationsMilliseconds: durations)
    }
}
