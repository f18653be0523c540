/// A contraction hierarchy: every node has a rank, and shortest paths are found by two searches that only climb
/// in rank (forward from the source, backward from the target), meeting at the highest node of the path.
///
/// Nodes are renumbered by rank (rank 0 contracted first), which puts the top of the hierarchy, where every
/// search ends up, into a few cache lines. Arcs live in two flat adjacency arrays (CSR): `forward` holds arcs
/// `low → high`, `backward` holds arcs `high → low` filed under `low`. Each arc names an entry of the arc table,
/// where a shortcut records its two halves and an original arc its edge id, for unpacking.
/// Build one with `ContractionHierarchy(graph:)`; it is immutable and shared between threads.
public struct ContractionHierarchy: Sendable {
    /// Nodes of the graph it was built from.
    public let nodeCount: Int
    /// Edges of the graph it was built from.
    public let edgeCount: Int
    /// `ContractionGraph.fingerprint` of the graph it was built from.
    public let graphFingerprint: UInt64

    /// Rank of each graph node.
    let rankOf: ContractionBuffer<Int32>
    /// Graph node at each rank.
    let nodeAt: ContractionBuffer<Int32>

    /// Upward arcs out of each rank (CSR offsets, `nodeCount + 1` of them).
    let forwardFirst: ContractionBuffer<Int32>
    let forwardHead: ContractionBuffer<Int32>
    let forwardWeight: ContractionBuffer<UInt32>
    let forwardArc: ContractionBuffer<Int32>
    /// Arcs from higher ranks into each rank, filed under the lower end.
    let backwardFirst: ContractionBuffer<Int32>
    let backwardHead: ContractionBuffer<Int32>
    let backwardWeight: ContractionBuffer<UInt32>
    let backwardArc: ContractionBuffer<Int32>

    /// Length in metres of each arc (a shortcut's is the sum of its halves).
    let arcLength: ContractionBuffer<Float>
    /// First half of a shortcut, or `~edgeID` (negative) for an original arc.
    let arcFirst: ContractionBuffer<Int32>
    /// Second half of a shortcut (unused for original arcs).
    let arcSecond: ContractionBuffer<Int32>
    /// The short shortcuts already unpacked (made from the arc table when a hierarchy is built, read back when loaded).
    private(set) var unpacked: UnpackedShortcuts

    /// Arcs in the hierarchy, original and shortcut.
    public var arcCount: Int { arcFirst.count }
    /// Shortcut arcs added by the contraction.
    public var shortcutCount: Int {
        var count = 0
        for arc in 0..<arcFirst.count where arcFirst[arc] >= 0 { count += 1 }
        return count
    }

    /// One direction's upward arcs (CSR by rank).
    typealias Arcs = (
        first: ContractionBuffer<Int32>, head: ContractionBuffer<Int32>, weight: ContractionBuffer<UInt32>,
        arc: ContractionBuffer<Int32>
    )

    init(
        nodeCount: Int, edgeCount: Int, graphFingerprint: UInt64, rankOf: ContractionBuffer<Int32>,
        nodeAt: ContractionBuffer<Int32>, forward: Arcs, backward: Arcs, arcLength: ContractionBuffer<Float>,
        arcFirst: ContractionBuffer<Int32>, arcSecond: ContractionBuffer<Int32>, unpacked: UnpackedShortcuts? = nil
    ) {
        self.nodeCount = nodeCount
        self.edgeCount = edgeCount
        self.graphFingerprint = graphFingerprint
        self.rankOf = rankOf
        self.nodeAt = nodeAt
        (forwardFirst, forwardHead, forwardWeight, forwardArc) = forward
        (backwardFirst, backwardHead, backwardWeight, backwardArc) = backward
        self.arcLength = arcLength
        self.arcFirst = arcFirst
        self.arcSecond = arcSecond
        self.unpacked = unpacked ?? UnpackedShortcuts(arcFirst: arcFirst, arcSecond: arcSecond)
    }

    /// Builds the hierarchy of `graph` (see `ContractionBuilder`).
    /// - Complexity: roughly O(n log n) witness-search work on road networks; seconds for a million nodes.
    public init(graph: ContractionGraph, configuration: ContractionBuilder.Configuration = .init()) {
        var builder = ContractionBuilder(graph: graph, configuration: configuration)
        self = builder.build()
    }

    /// Bytes of the unpacked short shortcuts (`UnpackedShortcuts`).
    package var unpackedShortcutByteCount: Int { unpacked.byteCount }

    /// The same hierarchy unpacking every shortcut by its halves (no lists), for comparisons.
    package func withoutUnpackedShortcuts() -> ContractionHierarchy {
        var copy = self
        copy.unpacked = UnpackedShortcuts(arcCount: arcCount)
        return copy
    }

    /// The same hierarchy with lists for shortcuts of at most `maximumEdges` edges.
    func withUnpackedShortcuts(maximumEdges: Int) -> ContractionHierarchy {
        var copy = self
        copy.unpacked = UnpackedShortcuts(arcFirst: arcFirst, arcSecond: arcSecond, maximumEdges: maximumEdges)
        return copy
    }

    /// Appends the original edge ids of arc `arc`, in path order, to `edges`.
    /// - Complexity: O(edges appended).
    func unpack(arc: Int32, into edges: inout [Int32]) {
        var stack: [Int32] = []
        unpack(arc: arc, into: &edges, stack: &stack)
    }

    /// As `unpack(arc:into:)`, with the caller's scratch stack (no allocation per arc).
    func unpack(arc: Int32, into edges: inout [Int32], stack: inout [Int32]) {
        stack.removeAll(keepingCapacity: true)
        stack.append(arc)
        let listStart = unpacked.start.base
        let lists = unpacked.lists.base
        while let top = stack.popLast() {
            let s = Int(listStart[Int(top)])
            if s >= 0 {
                edges.append(contentsOf: UnsafeBufferPointer(start: lists + s + 1, count: Int(lists[s])))
                continue
            }
            let first = arcFirst[Int(top)]
            if first < 0 {
                edges.append(~first)
            } else {
                stack.append(arcSecond[Int(top)])
                stack.append(first)
            }
        }
    }
}
