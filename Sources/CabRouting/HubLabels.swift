/// Hub labels computed from a contraction hierarchy: every node keeps, sorted by rank, the hubs its upward
/// search reaches with their exact distances (forward label) and the same for reaching it (backward label).
/// The duration from `s` to `t` is the smallest `forward(s)[h] + backward(t)[h]` over common hubs `h`: a merge
/// of two short sorted arrays, with no priority queue.
///
/// Built top-down (highest rank first): a node's label is its upward neighbours' labels shifted by the arc, then
/// pruned of every hub whose distance the labels already computed can beat (Abraham et al., "Hierarchical Hub
/// Labelings for Shortest Paths", 2012). Worth it on road networks (tens of hubs per node).
///
/// Labels can cover the upper hierarchy only: building stops when the next label would exceed the entry budget,
/// and ranks below `lowestLabelledRank` keep no label. Queries from such a node climb by a short upward search
/// to the labelled nodes it reaches (`UpperLabelQuery`). Lower labels are the largest and the most numerous
/// (on a grid the bottom half of the hierarchy is contracted first, one or two steps from labelled nodes), so
/// the budget bounds memory at any map size while most query work stays label scans.
public struct HubLabels: Sendable {
    /// Nodes of the graph.
    public let nodeCount: Int
    /// The lowest rank that has labels (0 when every node has them); ranks below it have empty labels.
    public let lowestLabelledRank: Int
    /// Rank of each graph node (the hierarchy's).
    let rankOf: ContractionBuffer<Int32>
    private(set) var forward: Direction
    private(set) var backward: Direction
    /// The precomputed climbs of the unlabelled ranks (nil when every node is labelled).
    private(set) var climbs: LabelClimbs?

    /// One direction's labels, CSR by rank: hubs (ranks, ascending) and durations packed in 6 bytes per entry
    /// (`LabelEntries`), lengths beside.
    struct Direction: Sendable {
        let first: ContractionBuffer<Int32>
        let entries: LabelEntries
        let length: ContractionBuffer<Float>

        /// The hub rank of each entry.
        var hub: LabelEntries.Hubs { entries.hub }
        /// The duration (milliseconds) of each entry.
        var duration: LabelEntries.Durations { entries.duration }
    }

    /// Hub entries in both directions.
    public var entryCount: Int { forward.entries.count + backward.entries.count }
    /// Nodes that have labels (the top of the hierarchy).
    public var labelledNodeCount: Int { nodeCount - lowestLabelledRank }
    /// True when every node has labels, so that any two nodes are joined by one label merge.
    public var coversEveryNode: Bool { lowestLabelledRank == 0 }
    /// Average hubs per label of the labelled nodes.
    public var averageLabelSize: Double {
        labelledNodeCount == 0 ? 0 : Double(entryCount) / Double(2 * labelledNodeCount)
    }
    /// Bytes the labels take (offsets, packed hubs and durations, lengths, and the unlabelled ranks' climbs).
    /// 10 bytes per entry: 6 packed for hub and duration (and a padding entry per direction), 4 for the length.
    public var byteCount: Int {
        2 * (4 * (nodeCount + 1)) + 6 * (entryCount + 2) + 4 * entryCount + (climbs?.byteCount ?? 0)
    }
    /// Bytes of the unlabelled ranks' precomputed climbs (`LabelClimbs`), included in `byteCount`.
    public var climbByteCount: Int { climbs?.byteCount ?? 0 }
    /// The same labels without the precomputed climbs (queries below the labels then search), for comparisons.
    package var withoutClimbs: HubLabels {
        var copy = self
        copy.climbs = nil
        return copy
    }

    init(
        nodeCount: Int, lowestLabelledRank: Int = 0, rankOf: ContractionBuffer<Int32>, forward: Direction,
        backward: Direction, climbs: LabelClimbs? = nil
    ) {
        precondition((0...nodeCount).contains(lowestLabelledRank), "lowest labelled rank out of range")
        self.nodeCount = nodeCount
        self.lowestLabelledRank = lowestLabelledRank
        self.rankOf = rankOf
        self.forward = forward
        self.backward = backward
        self.climbs = climbs
    }

    /// Computes the labels of `hierarchy` from the top down until they would hold more than `entryLimit` entries
    /// (the entry limit counts labels only), then the climbs of the ranks below them (`LabelClimbs`); nil when
    /// not even the highest node fits.
    /// - Complexity: O(n · L²) for average label size L; about 0.1 s for 17,000 road nodes; plus one short
    ///   climb per unlabelled rank and direction.
    public init?(hierarchy: ContractionHierarchy, entryLimit: Int = 40_000_000) {
        self.init(hierarchy: hierarchy, entryLimit: entryLimit, usesTwoThreads: true)
    }

    /// The same labels and climbs, built on the calling thread alone when `usesTwoThreads` is false (for `cab
    /// bench route`'s same-run comparison); otherwise two workers share the labels (`HubLabelBuilder`) and the
    /// climbs' two directions run on two threads.
    package init?(hierarchy: ContractionHierarchy, entryLimit: Int, usesTwoThreads: Bool) {
        guard
            var labels = HubLabelBuilder(hierarchy: hierarchy, entryLimit: entryLimit).build(
                onTwoThreads: usesTwoThreads)
        else { return nil }
        if !labels.coversEveryNode {
            labels.climbs =
                usesTwoThreads
                ? UpperLabelQuery.precomputeClimbs(hierarchy: hierarchy, labels: labels)
                : UpperLabelQuery(hierarchy: hierarchy, labels: labels).precomputeClimbs()
        }
        self = labels
    }

    /// The duration (and the length of that path) between seed lists; `UInt32.max` when unreachable. Needs
    /// labels on every node (`coversEveryNode`); `UpperLabelQuery` answers otherwise.
    /// - Complexity: O(label size) per pair of seeds.
    @inline(__always)
    func query(from sources: [ContractionSeed], to targets: [ContractionSeed]) -> (
        durationMilliseconds: UInt32, meters: Float
    ) {
        var best = UInt32.max
        var bestLength: Float = 0
        for s in sources {
            let sr = Int(rankOf[Int(s.node)])
            for t in targets {
                let tr = Int(rankOf[Int(t.node)])
                let (d, length) = Self.merge(forward, sr, backward, tr)
                if d == .max { continue }
                let total = d &+ s.durationMilliseconds &+ t.durationMilliseconds
                if total < best {
                    best = total
                    bestLength = length + s.lengthMeters + t.lengthMeters
                }
            }
        }
        return (best, bestLength)
    }

    /// The shortest `a[x] + b[y]` over common hubs of label `x` of `a` and label `y` of `b`.
    @inline(__always)
    static func merge(_ a: Direction, _ x: Int, _ b: Direction, _ y: Int) -> (UInt32, Float) {
        let aHub = a.hub
        let bHub = b.hub
        let aDuration = a.duration
        let bDuration = b.duration
        var i = Int(a.first[x])
        let iEnd = Int(a.first[x + 1])
        var j = Int(b.first[y])
        let jEnd = Int(b.first[y + 1])
        var best = UInt32.max
        var bestI = -1
        var bestJ = -1
        while i < iEnd && j < jEnd {
            let hi = aHub[i]
            let hj = bHub[j]
            if hi == hj {
                let d = aDuration[i] &+ bDuration[j]
                if d < best {
                    best = d
                    bestI = i
                    bestJ = j
                }
                i += 1
                j += 1
            } else if hi < hj {
                i += 1
            } else {
                j += 1
            }
        }
        if bestI < 0 { return (.max, 0) }
        return (best, a.length[bestI] + b.length[bestJ])
    }
}
