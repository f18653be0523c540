extension ContractionGraph {
    /// The road graph's nodes and edges (same ids), with lengths in metres.
    /// - Complexity: O(edges).
    public init(roadGraph graph: RoadGraph) {
        var edges: [Edge] = []
        edges.reserveCapacity(graph.edgeCount)
        for e in 0..<graph.edgeCount {
            edges.append(
                Edge(
                    from: graph.edgeSource(e), to: graph.edgeTarget(e), durationMs: graph.edgeDurationsMs[e],
                    lengthMeters: Float(graph.edgeDistancesDm[e]) / 10))
        }
        self.init(nodeCount: graph.nodeCount, edges: edges)
    }
}

extension ContractionSeed {
    /// The engine's seed for a road query seed.
    @inline(__always) public init(_ seed: RouteSeed) {
        self.init(
            node: seed.node, durationMs: UInt32(clamping: seed.costMilliseconds), lengthMeters: Float(seed.distanceMeters))
    }
}
