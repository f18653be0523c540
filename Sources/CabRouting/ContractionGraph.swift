/// The directed graph a contraction hierarchy is built from: nodes `0 ..< nodeCount` and edges whose index is
/// their edge id, so that unpacked paths name the caller's own edges (and through them, geometry).
///
/// Parallel edges, zero-duration edges and self-loops are allowed (self-loops never lie on a shortest path).
/// Turn restrictions are expected as split nodes: the engine sees only nodes and edges.
public struct ContractionGraph: Sendable, Equatable {
    /// One directed edge: travel time in integer milliseconds and length in metres.
    public struct Edge: Sendable, Equatable {
        /// The tail node.
        public var from: Int32
        /// The head node.
        public var to: Int32
        /// Travel time in milliseconds.
        public var durationMilliseconds: UInt32
        /// Length in metres.
        public var lengthMeters: Float

        /// Creates an edge.
        public init(from: Int, to: Int, durationMilliseconds: UInt32, lengthMeters: Float = 0) {
            self.from = Int32(from)
            self.to = Int32(to)
            self.durationMilliseconds = durationMilliseconds
            self.lengthMeters = lengthMeters
        }
    }

    /// How many nodes there are; node ids are `0 ..< nodeCount`.
    public let nodeCount: Int
    /// The edges; an edge's index is its edge id.
    public let edges: [Edge]

    /// Creates a graph; traps on an edge whose end is not a node (a caller's bug, not user input).
    public init(nodeCount: Int, edges: [Edge]) {
        precondition(nodeCount >= 0 && nodeCount < Int(Int32.max), "node count out of range")
        precondition(edges.count < Int(Int32.max), "too many edges")
        for edge in edges {
            precondition(edge.from >= 0 && Int(edge.from) < nodeCount, "edge tail \(edge.from) is not a node")
            precondition(edge.to >= 0 && Int(edge.to) < nodeCount, "edge head \(edge.to) is not a node")
            precondition(edge.durationMilliseconds < ContractionGraph.unreachable / 4, "edge duration too large")
        }
        self.nodeCount = nodeCount
        self.edges = edges
    }

    /// The duration meaning "no path" in every result of this engine.
    static let unreachable: UInt32 = .max

    /// A 64-bit FNV-1a hash of the node count and every edge, stored in preprocessed files so that a file built
    /// from another graph is refused.
    /// - Complexity: O(edges).
    public var fingerprint: UInt64 {
        Self.fingerprint(nodeCount: nodeCount, edgeCount: edges.count) { edges[$0] }
    }

    /// The fingerprint of a graph given edge by edge (so a `RoadGraph` need not be converted to get it).
    static func fingerprint(nodeCount: Int, edgeCount: Int, edge: (Int) -> Edge) -> UInt64 {
        var hash = FNV1a()
        hash.add(UInt64(nodeCount))
        for e in 0..<edgeCount {
            let edge = edge(e)
            hash.add(UInt64(UInt32(bitPattern: edge.from)) << 32 | UInt64(UInt32(bitPattern: edge.to)))
            hash.add(UInt64(edge.durationMilliseconds) << 32 | UInt64(edge.lengthMeters.bitPattern))
        }
        return hash.value
    }
}
