/// One end of a query: a node and what it costs to get between the query point and that node.
///
/// A point snapped to the middle of an edge `u → v` becomes, as a source, the seed `(v, rest of the edge)` (plus
/// `(u, part before the point)` when the reverse edge `v → u` exists); as a target, `(u, part before the point)`.
/// A source or target is a list of seeds; the engine picks the best pair.
public struct ContractionSeed: Hashable, Sendable {
    /// The node (of the `ContractionGraph`).
    public var node: Int32
    /// Milliseconds between the query point and the node.
    public var durationMilliseconds: UInt32
    /// Metres between the query point and the node.
    public var lengthMeters: Float

    /// Creates a seed.
    public init(node: Int, durationMilliseconds: UInt32 = 0, lengthMeters: Float = 0) {
        self.node = Int32(node)
        self.durationMilliseconds = durationMilliseconds
        self.lengthMeters = lengthMeters
    }
}
