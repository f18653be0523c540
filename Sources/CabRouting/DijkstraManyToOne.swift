/// Road durations from many starts to one end with one backward Dijkstra search: the baseline many-to-one query
/// (dispatch ranks drivers by their road time to a pickup). Same answers as one `DijkstraRouter` query per start.
///
/// Builds the reversed adjacency once (O(E)); copies share it (copy-on-write), so keep one prototype and copy it
/// per thread. Scratch arrays are reset in O(touched nodes) between queries.
public struct DijkstraManyToOne: Sendable {
    /// The graph searched.
    public let graph: RoadGraph
    private let reverseFirst: [UInt32]
    private let reverseSources: [UInt32]
    private let reverseDurations: [UInt32]
    private var cost: [Int]
    private var touched: [Int32] = []
    private var heap = MinHeap()

    /// A query engine over `graph`.
    /// - Complexity: O(V + E).
    public init(graph: RoadGraph) {
        self.graph = graph
        var counts = [UInt32](repeating: 0, count: graph.nodeCount + 1)
        for e in 0..<graph.edgeCount { counts[Int(graph.edgeTargets[e]) + 1] += 1 }
        for v in 0..<graph.nodeCount { counts[v + 1] += counts[v] }
        var next = counts
        var sources = [UInt32](repeating: 0, count: graph.edgeCount)
        var durations = [UInt32](repeating: 0, count: graph.edgeCount)
        for e in 0..<graph.edgeCount {
            let v = Int(graph.edgeTargets[e])
            sources[Int(next[v])] = graph.edgeSources[e]
            durations[Int(next[v])] = graph.edgeDurationsMilliseconds[e]
            next[v] += 1
        }
        reverseFirst = counts
        reverseSources = sources
        reverseDurations = durations
        cost = [Int](repeating: .max, count: graph.nodeCount)
    }

    /// Milliseconds from each of `starts` to `end` (nil where no road leads there).
    /// - Complexity: one backward search from `end`, stopped once every start's entry nodes are settled:
    ///   O((V + E) log V) at worst, about the ball reaching the farthest start in practice.
    public mutating func durationsMilliseconds(from starts: [SnappedPoint], to end: SnappedPoint) -> [Int?] {
        let endpoints = starts.map { RouteEndpoints(start: $0, end: end, in: graph) }
        reset()
        guard let first = endpoints.first else { return [] }
        for t in first.targets where t.costMilliseconds < cost[t.node] {
            if cost[t.node] == .max { touched.append(Int32(t.node)) }
            cost[t.node] = t.costMilliseconds
            heap.push(cost: t.costMilliseconds, node: t.node)
        }
        var waiting = Set(endpoints.flatMap { $0.sources.map(\.node) })
        while !waiting.isEmpty, let (c, v) = heap.pop() {
            if c > cost[v] { continue }
            waiting.remove(v)
            for i in Int(reverseFirst[v])..<Int(reverseFirst[v + 1]) {
                let u = Int(reverseSources[i])
                let next = c + Int(reverseDurations[i])
                if next < cost[u] {
                    if cost[u] == .max { touched.append(Int32(u)) }
                    cost[u] = next
                    heap.push(cost: next, node: u)
                }
            }
        }
        return endpoints.map { e in
            var best = e.direct?.costMilliseconds
            for s in e.sources where cost[s.node] != .max {
                let total = s.costMilliseconds + cost[s.node]
                if total < best ?? .max { best = total }
            }
            return best
        }
    }

    private mutating func reset() {
        for v in touched { cost[Int(v)] = .max }
        touched.removeAll(keepingCapacity: true)
        heap.removeAll()
    }
}
