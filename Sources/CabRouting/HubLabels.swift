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
        /// The same entries as two arrays of 4-byte hubs and durations, the layout before the sixth metro round;
        /// set only by `withWideEntries` (`cab bench route`'s same-run comparison), and then the batched
        /// many-to-one's label scans read it instead of `entries`.
        var wide: (hub: ContractionBuffer<Int32>, duration: ContractionBuffer<UInt32>)?

        /// This direction with `wide` filled in from `entries`.
        func widened() -> Direction {
            let hubs = ContractionBuffer<Int32>(uninitializedCount: entries.count)
            let durations = ContractionBuffer<UInt32>(uninitializedCount: entries.count)
            for e in 0..<entries.count {
                hubs[e] = hub[e]
                durations[e] = duration[e]
            }
            var copy = self
            copy.wide = (hubs, durations)
            return copy
        }
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
    /// The same labels with a copy of their entries in the layout before the sixth metro round (`Direction.wide`),
    /// which the batched many-to-one then scans: `cab bench route`'s same-run comparison of the two layouts.
    package var withWideEntries: HubLabels {
        var copy = self
        copy.forward = forward.widened()
        copy.backward = backward.widened()
        return copy
    }
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

    /// The same labels and climbs, the climbs' two directions built on the calling thread alone when
    /// `usesTwoThreads` is false (for `cab bench route`'s same-run comparison).
    package init?(hierarchy: ContractionHierarchy, entryLimit: Int, usesTwoThreads: Bool) {
        var builder = HubLabelBuilder(hierarchy: hierarchy, entryLimit: entryLimit)
        guard var labels = builder.build() else { return nil }
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

/// Computes `HubLabels` top-down from a hierarchy (see `HubLabels`).
struct HubLabelBuilder {
    let hierarchy: ContractionHierarchy
    let entryLimit: Int
    // Scratch: the candidate label of the node being labelled, dense by hub rank; `UInt32.max` where a rank is no
    // candidate (each label resets the slots it set), so that the pruning reads one word per hub and needs no stamp.
    private let candidateDuration: ContractionBuffer<UInt32>
    private let candidateLength: ContractionBuffer<Float>
    private var hubs: [Int32] = []

    init(hierarchy: ContractionHierarchy, entryLimit: Int) {
        self.hierarchy = hierarchy
        self.entryLimit = entryLimit
        candidateDuration = ContractionBuffer(repeating: .max, count: hierarchy.nodeCount)
        candidateLength = ContractionBuffer(repeating: 0, count: hierarchy.nodeCount)
    }

    /// One direction's labels in the making, appended from the highest rank down into buffers reserved for the
    /// whole budget (address space only: pages become resident as entries are written, and the finished labels
    /// are these same buffers, never a second copy).
    private struct Growing {
        var start: [Int32]
        var end: [Int32]
        let capacity: Int
        let hub: ContractionBuffer<Int32>
        let duration: ContractionBuffer<UInt32>
        let length: ContractionBuffer<Float>
        var count = 0
        /// The longest duration appended (a packed entry holds at most `LabelEntries.maxDuration`).
        var maxDuration: UInt32 = 0

        init(nodeCount: Int, capacity: Int) {
            start = Array(repeating: 0, count: nodeCount)
            end = Array(repeating: 0, count: nodeCount)
            self.capacity = capacity
            hub = ContractionBuffer(uninitializedCount: capacity)
            duration = ContractionBuffer(uninitializedCount: capacity)
            length = ContractionBuffer(uninitializedCount: capacity)
        }

        /// Forgets the label of `rank`, the last one appended.
        mutating func drop(rank r: Int) {
            count = Int(start[r])
            start[r] = 0
            end[r] = 0
        }

        /// The finished labels in rank order, hubs and durations packed (`LabelEntries`): the labels were
        /// appended highest rank first, each with ascending hubs, so they are copied label by label from the lowest
        /// rank up. The lengths are reversed in place instead (reversing all entries puts the labels in rank order
        /// with each one backwards, and reversing each label again restores its ascending hubs).
        func finish(nodeCount: Int, lowest: Int) -> HubLabels.Direction {
            func reverse<T>(_ buffer: ContractionBuffer<T>, _ range: Range<Int>) {
                var view = UnsafeMutableBufferPointer(start: buffer.base + range.lowerBound, count: range.count)
                view.reverse()
            }
            let total = count
            var first = [Int32](repeating: 0, count: nodeCount + 1)
            reverse(length, 0..<total)
            for r in lowest..<nodeCount {
                let range = (total - Int(end[r]))..<(total - Int(start[r]))
                first[r] = Int32(range.lowerBound)
                first[r + 1] = Int32(range.upperBound)
                reverse(length, range)
            }
            // Entry by entry in the finished order: rank by rank from the lowest, each label as appended.
            var r = lowest - 1
            var e = 0
            var labelEnd = 0
            let entries = LabelEntries(count: total, lowest: Int32(lowest)) { _ in
                while e == labelEnd {
                    r += 1
                    e = Int(start[r])
                    labelEnd = Int(end[r])
                }
                defer { e += 1 }
                return (hub[e], duration[e])
            }
            return .init(first: ContractionBuffer(first), entries: entries, length: length.prefix(total))
        }
    }

    mutating func build() -> HubLabels? {
        let n = hierarchy.nodeCount
        // A label holds at most one entry per rank: room for the budget plus one label, per direction.
        let capacity = min(entryLimit, n * n) + n + 1
        var forward = Growing(nodeCount: n, capacity: capacity)
        var backward = Growing(nodeCount: n, capacity: capacity)
        var r = n - 1
        while r >= 0 {
            let h = hierarchy
            label(
                rank: r, into: &forward, opposite: backward, first: h.forwardFirst, head: h.forwardHead,
                weight: h.forwardWeight, arc: h.forwardArc)
            label(
                rank: r, into: &backward, opposite: forward, first: h.backwardFirst, head: h.backwardHead,
                weight: h.backwardWeight, arc: h.backwardArc)
            if forward.count + backward.count > entryLimit || n - r > LabelEntries.maxHubOffset + 1
                || max(forward.maxDuration, backward.maxDuration) > LabelEntries.maxDuration
            {
                // Over budget, or past what a packed entry holds (more than ~1 M labelled ranks, or a duration
                // over 74 hours): this rank and every one below stay unlabelled (their queries climb to here).
                forward.drop(rank: r)
                backward.drop(rank: r)
                break
            }
            r -= 1
        }
        let lowest = r + 1
        guard lowest < n else { return nil }
        // Each direction's build buffers are released once packed, before the other is.
        let forwardLabels = forward.finish(nodeCount: n, lowest: lowest)
        forward = Growing(nodeCount: 0, capacity: 0)
        let backwardLabels = backward.finish(nodeCount: n, lowest: lowest)
        backward = Growing(nodeCount: 0, capacity: 0)
        return HubLabels(
            nodeCount: n, lowestLabelledRank: lowest, rankOf: hierarchy.rankOf, forward: forwardLabels,
            backward: backwardLabels)
    }

    /// Computes the label of `rank` in one direction from its upward neighbours' labels, prunes it against the
    /// opposite direction's labels of its hubs, and appends it.
    private mutating func label(
        rank r: Int, into labels: inout Growing, opposite: Growing, first: ContractionBuffer<Int32>,
        head: ContractionBuffer<Int32>, weight: ContractionBuffer<UInt32>, arc: ContractionBuffer<Int32>
    ) {
        let candidate = candidateDuration.base
        let candidateLength = candidateLength.base
        var hubs = self.hubs
        self.hubs = []
        defer { self.hubs = hubs }
        hubs.removeAll(keepingCapacity: true)
        @inline(__always) func offer(_ hub: Int32, _ duration: UInt32, _ length: Float) {
            let h = Int(hub)
            let known = candidate[h]
            if known == .max { hubs.append(hub) }
            if duration < known {
                candidate[h] = duration
                candidateLength[h] = length
            }
        }
        offer(Int32(r), 0, 0)
        let labelHub = labels.hub.base
        let labelDuration = labels.duration.base
        let labelLength = labels.length.base
        for k in Int(first[r])..<Int(first[r + 1]) {
            let x = Int(head[k])
            let w = weight[k]
            let len = hierarchy.arcLength[Int(arc[k])]
            for e in Int(labels.start[x])..<Int(labels.end[x]) {
                offer(labelHub[e], labelDuration[e] &+ w, labelLength[e] + len)
            }
        }
        hubs.sort()
        labels.start[r] = Int32(labels.count)
        let oppositeHub = opposite.hub.base
        let oppositeDuration = opposite.duration.base
        for hub in hubs {
            let h = Int(hub)
            let d = UInt64(candidate[h])
            var pruned = false
            if h != r {
                // Any common hub x with candidate(x) + opposite(h)[x] < d proves d is not a shortest distance (a
                // rank that is no candidate holds `UInt32.max`, whose sum is never below d).
                for e in Int(opposite.start[h])..<Int(opposite.end[h])
                where UInt64(candidate[Int(oppositeHub[e])]) &+ UInt64(oppositeDuration[e]) < d {
                    pruned = true
                    break
                }
            }
            if !pruned && labels.count < labels.capacity {
                labels.hub[labels.count] = hub
                labels.duration[labels.count] = UInt32(d)
                labels.length[labels.count] = candidateLength[h]
                labels.count += 1
                labels.maxDuration = max(labels.maxDuration, UInt32(d))
            }
        }
        labels.end[r] = Int32(labels.count)
        // The next label starts from no candidate.
        for hub in hubs { candidate[Int(hub)] = .max }
    }
}
