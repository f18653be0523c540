/// Plain Dijkstra with a binary heap: the reference every faster engine is checked against.
///
/// Keeps its scratch arrays between queries (reset in O(touched nodes)), so one router per thread answers
/// many queries without allocating per node.
public struct DijkstraRouter: Sendable {
    /// The graph searched.
    public let graph: RoadGraph
    private var cost: [Int]
    private var parentEdge: [Int32]
    private var touched: [Int32] = []
    private var heap = MinHeap()

    /// A router over `graph`.
    public init(graph: RoadGraph) {
        self.graph = graph
        cost = [Int](repeating: .max, count: graph.nodeCount)
        parentEdge = [Int32](repeating: -1, count: graph.nodeCount)
    }

    /// The best path between seeds: the cheapest `source.cost + path + target.cost`.
    public struct Path: Sendable, Hashable {
        /// Total milliseconds, seeds included.
        public var costMilliseconds: Int
        /// The seed the path starts from.
        public var source: RouteSeed
        /// The edges driven, in order.
        public var edges: [Int]
        /// The seed the path ends at.
        public var target: RouteSeed
    }

    /// The cheapest path from any of `sources` to any of `targets`; nil when none is reachable.
    /// - Complexity: O((V + E) log V) in the worst case; stops once no cheaper target can be reached.
    public mutating func shortestPath(from sources: [RouteSeed], to targets: [RouteSeed]) -> Path? {
        reset()
        for s in sources where s.costMilliseconds < cost[s.node] {
            if cost[s.node] == .max { touched.append(Int32(s.node)) }
            cost[s.node] = s.costMilliseconds
            heap.push(cost: s.costMilliseconds, node: s.node)
        }
        var best = Int.max
        var bestTarget: RouteSeed? = nil
        var targetIndex: [Int: Int] = [:]
        for (i, t) in targets.enumerated() { targetIndex[t.node] = i }
        while let (c, v) = heap.pop() {
            if c >= best { break }
            if c > cost[v] { continue }
            if let i = targetIndex[v], c + targets[i].costMilliseconds < best {
                best = c + targets[i].costMilliseconds
                bestTarget = targets[i]
            }
            for e in graph.edges(from: v) {
                let w = Int(graph.edgeTargets[e])
                let next = c + Int(graph.edgeDurationsMilliseconds[e])
                if next < cost[w] {
                    if cost[w] == .max { touched.append(Int32(w)) }
                    cost[w] = next
                    parentEdge[w] = Int32(e)
                    heap.push(cost: next, node: w)
                }
            }
        }
        guard let target = bestTarget else { return nil }
        var edges: [Int] = []
        var v = target.node
        while parentEdge[v] >= 0 {
            let e = Int(parentEdge[v])
            edges.append(e)
            v = graph.edgeSource(e)
        }
        edges.reverse()
        let source = sources.filter { $0.node == v }.min { $0.costMilliseconds < $1.costMilliseconds }!  // v is a seed
        return Path(costMilliseconds: best, source: source, edges: edges, target: target)
    }

    /// The fastest route between two snapped points.
    /// - Throws: `RoutingError.unroutable` when no road path joins them.
    public mutating func route(_ endpoints: RouteEndpoints) throws(RoutingError) -> Route {
        let path = shortestPath(from: endpoints.sources, to: endpoints.targets)
        if let leg = endpoints.direct, leg.costMilliseconds <= path?.costMilliseconds ?? .max {
            return graph.directRoute(endpoints, leg: leg)
        }
        guard let path else {
            throw RoutingError(
                .unroutable,
                "no road route from \(endpoints.start.query) to \(endpoints.end.query): they are not connected")
        }
        return graph.route(endpoints, source: path.source, edges: path.edges, target: path.target)
    }

    /// The travel time between two snapped points in milliseconds; nil when unroutable.
    public mutating func durationMilliseconds(_ endpoints: RouteEndpoints) -> Int? {
        let found = shortestPath(from: endpoints.sources, to: endpoints.targets)?.costMilliseconds
        switch (found, endpoints.direct?.costMilliseconds) {
        case (let a?, let b?): return min(a, b)
        case (let a, let b): return a ?? b
        }
    }

    private mutating func reset() {
        for v in touched {
            cost[Int(v)] = .max
            parentEdge[Int(v)] = -1
        }
        touched.removeAll(keepingCapacity: true)
        heap.removeAll()
    }
}
