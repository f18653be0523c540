extension ContractionGraph {
    /// The road graph's nodes and edges (same ids), with lengths in metres.
    /// - Complexity: O(edges).
    public init(roadGraph graph: RoadGraph) {
        var edges: [Edge] = []
        edges.reserveCapacity(graph.edgeCount)
        for e in 0..<graph.edgeCount { edges.append(Self.edge(e, of: graph)) }
        self.init(nodeCount: graph.nodeCount, edges: edges)
    }

    static func edge(_ e: Int, of graph: RoadGraph) -> Edge {
        Edge(
            from: graph.edgeSource(e), to: graph.edgeTarget(e),
            durationMilliseconds: graph.edgeDurationsMilliseconds[e],
            lengthMeters: Float(graph.edgeDistancesDm[e]) / 10)
    }
}

extension RoadGraph {
    /// `ContractionGraph(roadGraph: self).fingerprint`, without building that graph (start-up checks the
    /// routing index against the graph with it). A graph loaded from a file answers with the value stored in it.
    /// - Complexity: O(edges), no allocation; O(1) for a loaded graph.
    public var contractionFingerprint: UInt64 {
        if let storedContractionFingerprint { return storedContractionFingerprint }
        return ContractionGraph.fingerprint(nodeCount: nodeCount, edgeCount: edgeCount) {
            ContractionGraph.edge($0, of: self)
        }
    }
}

extension ContractionSeed {
    /// The engine's seed for a road query seed.
    @inline(__always) public init(_ seed: RouteSeed) {
        self.init(
            node: seed.node, durationMilliseconds: UInt32(clamping: seed.costMilliseconds),
            lengthMeters: Float(seed.distanceMeters))
    }
}
