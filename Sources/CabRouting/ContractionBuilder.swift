/// Contracts a graph into a `ContractionHierarchy`, one node at a time.
///
/// Order: a lazily updated priority queue keyed like OSRM's, `2 · shortcuts added / arcs removed
/// + 4 · original edges added / original edges removed + depth`, where depth is one more than the deepest
/// contracted neighbour (it spreads contraction evenly, which keeps searches short). A node popped from the
/// queue is simulated again; if it got worse than the next one it goes back. Contracting a node adds a shortcut
/// `u → x` for an in-arc `u → v` and out-arc `v → x` unless a witness search from `u` that avoids `v` finds a
/// path no longer than `u → v → x`; witness searches stop after `witnessSettleLimit` settled nodes (a missed
/// witness only costs a superfluous shortcut, never correctness).
///
/// The order stays one node at a time, but the work around each node is shared with a second thread when there is
/// one (`PriorityHelper`): the witness searches of the popped node's in-arcs, and the new estimates of its
/// neighbours once it is contracted. Both only read the shrinking graph, which changes between them, not during;
/// their results are put together in the order one thread finds them, so the hierarchy is the same.
public struct ContractionBuilder {
    /// Tuning knobs.
    public struct Configuration: Sendable {
        /// Nodes a witness search may settle before giving up, when contracting. 250 rather than 60: on the N=700
        /// grid the searches then prove 0.4 % of the shortcuts needless, and the hierarchy is enough better that the
        /// labels cover 11 % more of it within the same budget and a many-to-one driver scans 16 % fewer label
        /// entries, for no contraction time the box could measure (a search that finds every target, or passes the
        /// longest way through the node, stops before the limit; 250 and 500 gave the same hierarchy).
        /// docs/performance.md, "Metro, eleventh round".
        public var witnessSettleLimit: Int
        /// The same while only estimating a node's priority (cheaper, slightly pessimistic). 10 rather than 20: on
        /// the N=700 grid the contraction takes 16 % less time for 6 % more shortcuts and the same query times;
        /// at 5 the hierarchy gets visibly worse (docs/performance.md, "Metro, seventh round").
        public var simulationSettleLimit: Int
        /// Whether the priority estimates and witness searches may be shared with a second thread
        /// (`PriorityHelper`) on graphs of `ContractionBuilder.twoThreadMinimumNodes` nodes or more, when a second
        /// processor is online; `SharingSchedule` measures whether it pays as the contraction goes. The hierarchy is
        /// the same either way. On the N=700 grid: 16-18 % less time when the box's two processors are free, about
        /// the same (+3 %) when they are not (docs/performance.md, "Metro, eighth round").
        public var usesTwoThreads: Bool
        /// Creates a configuration.
        public init(witnessSettleLimit: Int = 250, simulationSettleLimit: Int = 10, usesTwoThreads: Bool = true) {
            self.witnessSettleLimit = witnessSettleLimit
            self.simulationSettleLimit = simulationSettleLimit
            self.usesTwoThreads = usesTwoThreads
        }
    }

    /// An arc of the shrinking graph, stored at both ends.
    struct DynamicArc {
        var other: Int32
        var weight: UInt32
        var arc: Int32
    }

    /// An arc recorded when its lower end is contracted (the lower end is implied by where it is filed).
    struct UpArc {
        var high: Int32
        var weight: UInt32
        var arc: Int32
    }

    struct Shortcut {
        var from: Int32
        var to: Int32
        var weight: UInt32
        var first: Int32
        var second: Int32
        var hops: UInt32
    }

    /// Epochs of the last `build()` that shared their work with the second thread, and that ran alone
    /// (`SharingSchedule`; both 0 on one thread).
    package private(set) var epochsSharing = 0
    package private(set) var epochsAlone = 0
    private let configuration: Configuration
    private let nodeCount: Int
    private let edgeCount: Int
    private let fingerprint: UInt64
    private var outs: ContractionAdjacency
    private var ins: ContractionAdjacency
    private var incoming: [DynamicArc] = []
    private var outgoing: [DynamicArc] = []
    // The arc table: every original arc and shortcut.
    private var arcLength: [Float] = []
    private var arcFirst: [Int32] = []
    private var arcSecond: [Int32] = []
    /// Original edges each arc stands for (kept here rather than in both adjacency copies: 12-byte arcs).
    private var arcHops: [UInt32] = []
    // Per node.
    private var rank: [Int32]
    private var depth: [Int32]
    // Arcs recorded when their lower end is contracted: (low node, high node, arc), forward or backward.
    // Ranks are handed out in contraction order, so the arcs land grouped by rank: CSR as they are recorded.
    private var upForward: [UpArc] = []
    private var upBackward: [UpArc] = []
    private var upForwardFirst: [Int32] = [0]
    private var upBackwardFirst: [Int32] = [0]

    /// Prepares to contract `graph`.
    public init(graph: ContractionGraph, configuration: Configuration = .init()) {
        self.configuration = configuration
        nodeCount = graph.nodeCount
        edgeCount = graph.edges.count
        fingerprint = graph.fingerprint
        outs = ContractionAdjacency(nodeCount: nodeCount)
        ins = ContractionAdjacency(nodeCount: nodeCount)
        rank = Array(repeating: -1, count: nodeCount)
        depth = Array(repeating: 0, count: nodeCount)
        // Room for the shortcuts too (grids add about one per edge): reserved address space is not resident
        // until written, and growing a large array by copying would briefly hold it twice.
        let expectedArcs = 3 * graph.edges.count + 1024
        arcLength.reserveCapacityOnHugePages(expectedArcs)
        arcFirst.reserveCapacityOnHugePages(expectedArcs)
        arcSecond.reserveCapacityOnHugePages(expectedArcs)
        arcHops.reserveCapacityOnHugePages(expectedArcs)
        upForward.reserveCapacityOnHugePages(expectedArcs)
        upBackward.reserveCapacityOnHugePages(expectedArcs)
        upForwardFirst.reserveCapacityOnHugePages(nodeCount + 1)
        upBackwardFirst.reserveCapacityOnHugePages(nodeCount + 1)
        outs.reserve(arcs: 2 * expectedArcs)
        ins.reserve(arcs: 2 * expectedArcs)
        for (id, edge) in graph.edges.enumerated() where edge.from != edge.to {
            if let index = outs.index(of: edge.to, at: edge.from) {
                let existing = outs.pool[index]
                let old = Int(existing.arc)
                let better =
                    edge.durationMilliseconds < existing.weight
                    || (edge.durationMilliseconds == existing.weight && edge.lengthMeters < arcLength[old])
                if better {
                    setWeight(from: edge.from, to: edge.to, weight: edge.durationMilliseconds, arc: existing.arc)
                    arcLength[old] = edge.lengthMeters
                    arcFirst[old] = ~Int32(id)
                }
                continue
            }
            let arc = Int32(arcFirst.count)
            arcLength.append(edge.lengthMeters)
            arcFirst.append(~Int32(id))
            arcSecond.append(-1)
            arcHops.append(1)
            outs.append(DynamicArc(other: edge.to, weight: edge.durationMilliseconds, arc: arc), to: edge.from)
            ins.append(DynamicArc(other: edge.from, weight: edge.durationMilliseconds, arc: arc), to: edge.to)
        }
    }

    /// Contracts every node and returns the hierarchy.
    /// - Complexity: dominated by witness searches, each bounded by `witnessSettleLimit`.
    public mutating func build() -> ContractionHierarchy {
        var estimator = PriorityEstimator(nodeCount: nodeCount)
        if configuration.usesTwoThreads && nodeCount >= Self.twoThreadMinimumNodes && PriorityHelper.hasSecondProcessor
        {
            let helper = PriorityHelper(nodeCount: nodeCount)
            let started = TwoThreads.run({ helper.run() }) {
                contractAll(&estimator, helper: helper)
                helper.stop()
            }
            if started { return makeHierarchy() }
        }
        contractAll(&estimator, helper: nil)
        return makeHierarchy()
    }

    /// Below this many nodes the contraction stays on one thread (a test-sized graph gains nothing from a second).
    static let twoThreadMinimumNodes = 2_000

    /// Contracts every node in queue order; the estimates of the start and of each contracted node's neighbours are
    /// shared with `helper` when there is one (the same keys, applied in the same order, as without it).
    private mutating func contractAll(_ estimator: inout PriorityEstimator, helper: PriorityHelper?) {
        let queue = ContractionHeap(capacity: nodeCount)
        let estimate = configuration.simulationSettleLimit
        var keys = [UInt32](repeating: 0, count: nodeCount)
        let all = (0..<nodeCount).map(Int32.init)
        estimates(of: all, into: &keys, chunk: 256, settleLimit: estimate, estimator: &estimator, helper: helper)
        for v in 0..<nodeCount { queue.push(Int32(v), key: keys[v]) }
        var nextRank: Int32 = 0
        var neighbours: [Int32] = []
        var schedule = SharingSchedule()
        let clock = ContinuousClock()
        var epochStart = clock.now
        var epochContracted = 0
        defer { (epochsSharing, epochsAlone) = (schedule.epochsSharing, schedule.epochsAlone) }
        while !queue.isEmpty {
            let (v, _) = queue.pop()
            let sharing = schedule.shares ? helper : nil
            let key = withSnapshot {
                estimator.priority(
                    of: v, collect: true, settleLimit: configuration.witnessSettleLimit, in: $0, helper: sharing)
            }
            if !queue.isEmpty && key > queue.minKey {
                queue.push(v, key: key)
                continue
            }
            rank[Int(v)] = nextRank
            nextRank += 1
            neighbours.removeAll(keepingCapacity: true)
            contract(v, neighbours: &neighbours, shortcuts: estimator.shortcuts)
            for n in neighbours { depth[Int(n)] = max(depth[Int(n)], depth[Int(v)] + 1) }
            estimates(of: neighbours, into: &keys, settleLimit: estimate, estimator: &estimator, helper: sharing)
            for (i, n) in neighbours.enumerated() { queue.update(n, to: keys[i]) }
            epochContracted += 1
            if helper != nil && epochContracted == SharingSchedule.epochContractions {
                let now = clock.now
                let elapsed = now - epochStart
                let shared = schedule.shares
                schedule.finished(
                    epochSeconds: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18)
                if shared != schedule.shares { schedule.shares ? helper?.unpark() : helper?.park() }
                (epochStart, epochContracted) = (clock.now, 0)
            }
        }
    }

    /// The estimated priorities of `nodes` into `keys[0..<nodes.count]`, shared with `helper` when there is one
    /// and more than one node (`chunk` nodes taken at a time).
    private func estimates(
        of nodes: [Int32], into keys: inout [UInt32], chunk: Int = 1, settleLimit: Int,
        estimator: inout PriorityEstimator, helper: PriorityHelper?
    ) {
        withSnapshot { graph in
            nodes.withUnsafeBufferPointer { nodes in
                keys.withUnsafeMutableBufferPointer { keys in
                    if let helper, nodes.count > 1 {
                        helper.estimate(
                            nodes.baseAddress!, count: nodes.count, into: keys.baseAddress!, chunk: chunk,
                            settleLimit: settleLimit, with: &estimator, in: graph)
                        return
                    }
                    for i in nodes.indices {
                        keys[i] = estimator.priority(of: nodes[i], collect: false, settleLimit: settleLimit, in: graph)
                    }
                }
            }
        }
    }

    /// Runs `body` with a view of the shrinking graph as it is now (see `ContractionSnapshot`).
    private func withSnapshot<R>(_ body: (ContractionSnapshot) -> R) -> R {
        outs.withView { outs in
            ins.withView { ins in
                arcHops.withUnsafeBufferPointer { arcHops in
                    depth.withUnsafeBufferPointer { depth in
                        body(
                            ContractionSnapshot(
                                outs: outs, ins: ins, arcHops: arcHops.baseAddress!, depth: depth.baseAddress!))
                    }
                }
            }
        }
    }

    /// Removes `v` from the shrinking graph, records its remaining arcs as upward arcs, adds `shortcuts`.
    private mutating func contract(_ v: Int32, neighbours: inout [Int32], shortcuts: [Shortcut]) {
        outgoing.removeAll(keepingCapacity: true)
        outgoing.append(contentsOf: outs.arcs(v))
        incoming.removeAll(keepingCapacity: true)
        incoming.append(contentsOf: ins.arcs(v))
        outs.removeAll(at: v)
        ins.removeAll(at: v)
        for arc in outgoing {
            upForward.append(UpArc(high: arc.other, weight: arc.weight, arc: arc.arc))
            ins.remove(v, at: arc.other)
            neighbours.append(arc.other)
        }
        for arc in incoming {
            upBackward.append(UpArc(high: arc.other, weight: arc.weight, arc: arc.arc))
            outs.remove(v, at: arc.other)
            if !outgoing.contains(where: { $0.other == arc.other }) { neighbours.append(arc.other) }
        }
        upForwardFirst.append(Int32(upForward.count))
        upBackwardFirst.append(Int32(upBackward.count))
        for shortcut in shortcuts { add(shortcut) }
    }

    private mutating func add(_ s: Shortcut) {
        let length = arcLength[Int(s.first)] + arcLength[Int(s.second)]
        if let index = outs.index(of: s.to, at: s.from) {
            let existing = outs.pool[index]
            guard s.weight < existing.weight else { return }
            // A fresh table entry (the old one is left unused), so that halves always precede their shortcut.
            let arc = Int32(arcFirst.count)
            arcLength.append(length)
            arcFirst.append(s.first)
            arcSecond.append(s.second)
            arcHops.append(s.hops)
            setWeight(from: s.from, to: s.to, weight: s.weight, arc: arc)
            return
        }
        let arc = Int32(arcFirst.count)
        arcLength.append(length)
        arcFirst.append(s.first)
        arcSecond.append(s.second)
        arcHops.append(s.hops)
        outs.append(DynamicArc(other: s.to, weight: s.weight, arc: arc), to: s.from)
        ins.append(DynamicArc(other: s.from, weight: s.weight, arc: arc), to: s.to)
    }

    /// Changes the existing arc `from → to` at both of its ends.
    private mutating func setWeight(from: Int32, to: Int32, weight: UInt32, arc: Int32) {
        if let i = outs.index(of: to, at: from) { outs.set(i, DynamicArc(other: to, weight: weight, arc: arc)) }
        if let i = ins.index(of: from, at: to) { ins.set(i, DynamicArc(other: from, weight: weight, arc: arc)) }
    }

    /// Lays the recorded upward arcs out by rank.
    private mutating func makeHierarchy() -> ContractionHierarchy {
        outs = ContractionAdjacency(nodeCount: 0)
        ins = ContractionAdjacency(nodeCount: 0)
        arcHops = []
        var nodeAt = [Int32](repeating: 0, count: nodeCount)
        for v in 0..<nodeCount { nodeAt[Int(rank[v])] = Int32(v) }
        // Straight into the query buffers, one array at a time, so that no second copy of all arcs is alive.
        func layout(_ arcs: inout [UpArc], _ first: inout [Int32]) -> ContractionHierarchy.Arcs {
            precondition(first.count == nodeCount + 1, "every node contracted once")
            let offsets = ContractionBuffer(first)
            first = []
            let head = ContractionBuffer<Int32>(repeating: 0, count: arcs.count)
            let weight = ContractionBuffer<UInt32>(repeating: 0, count: arcs.count)
            let arc = ContractionBuffer<Int32>(repeating: 0, count: arcs.count)
            for (slot, a) in arcs.enumerated() {
                head[slot] = rank[Int(a.high)]
                weight[slot] = a.weight
                arc[slot] = a.arc
            }
            arcs = []
            return (offsets, head, weight, arc)
        }
        let forward = layout(&upForward, &upForwardFirst)
        let backward = layout(&upBackward, &upBackwardFirst)
        // Each table moves into its query buffer and is released before the next, never all twice at once.
        func buffer<T: BitwiseCopyable>(_ array: inout [T]) -> ContractionBuffer<T> {
            defer { array = [] }
            return ContractionBuffer(array)
        }
        let arcLengths = buffer(&arcLength)
        let arcFirsts = buffer(&arcFirst)
        let arcSeconds = buffer(&arcSecond)
        return ContractionHierarchy(
            nodeCount: nodeCount, edgeCount: edgeCount, graphFingerprint: fingerprint, rankOf: buffer(&rank),
            nodeAt: ContractionBuffer(nodeAt), forward: forward, backward: backward, arcLength: arcLengths,
            arcFirst: arcFirsts, arcSecond: arcSeconds)
    }
}

/// A bounded Dijkstra in the shrinking graph that looks for paths avoiding the node being contracted.
///
/// Everything it keeps per node (distance, stamp, target stamp, heap position) is one 16-byte struct, so that
/// reaching a node costs one cache miss; the 4-ary heap keeps its keys and nodes in two small arrays.
struct WitnessSearch {
    private struct NodeState {
        var distance: UInt32 = 0
        /// The search that last reached the node.
        var stamp: UInt32 = 0
        /// The search that last made the node a target.
        var targetStamp: UInt32 = 0
        /// Where the node is in the heap; -1 once popped (meaningful only while `stamp` is the current search's).
        var position: Int32 = -1
    }

    private let state: ContractionBuffer<NodeState>
    private let keys: ContractionBuffer<UInt32>
    private let nodes: ContractionBuffer<Int32>
    private var queued = 0
    private var stamp: UInt32 = 0

    init(nodeCount: Int) {
        state = ContractionBuffer(repeating: NodeState(), count: nodeCount)
        keys = ContractionBuffer(repeating: 0, count: nodeCount)
        nodes = ContractionBuffer(repeating: 0, count: nodeCount)
    }

    /// The distance found to `node` by the last run, or `UInt32.max` when none was found.
    func distance(to node: Int32) -> UInt32 {
        let s = state[Int(node)]
        return s.stamp == stamp ? s.distance : .max
    }

    mutating func run(
        from source: Int32, avoiding skipped: Int32, limit: UInt32, targets: [ContractionBuilder.DynamicArc],
        outs: ContractionAdjacency.View, settleLimit: Int
    ) {
        let state = self.state.base
        stamp &+= 1
        if stamp == 0 {
            for i in 0..<self.state.count {
                state[i].stamp = 0
                state[i].targetStamp = 0
            }
            stamp = 1
        }
        let stamp = self.stamp
        var remaining = 0
        for target in targets where state[Int(target.other)].targetStamp != stamp {
            state[Int(target.other)].targetStamp = stamp
            remaining += 1
        }
        queued = 0
        state[Int(source)].distance = 0
        state[Int(source)].stamp = stamp
        push(source, key: 0)
        var settled = 0
        do {
            let pool = outs.pool
            while queued > 0 {
                let (node, distance) = pop()
                if distance > limit { break }
                if state[Int(node)].targetStamp == stamp {
                    remaining -= 1
                    if remaining == 0 { break }
                }
                settled += 1
                if settled > settleLimit { break }
                for k in outs.range(node) {
                    let arc = pool[k]
                    if arc.other == skipped { continue }
                    let candidate = distance + arc.weight
                    if candidate > limit { continue }
                    let next = Int(arc.other)
                    if state[next].stamp != stamp {
                        state[next].stamp = stamp
                        state[next].distance = candidate
                        push(arc.other, key: candidate)
                    } else if candidate < state[next].distance && state[next].position >= 0 {
                        state[next].distance = candidate
                        siftUp(from: Int(state[next].position), node: arc.other, key: candidate)
                    }
                }
            }
        }
    }

    @inline(__always) private mutating func push(_ node: Int32, key: UInt32) {
        siftUp(from: queued, node: node, key: key)
        queued += 1
    }

    @inline(__always) private mutating func pop() -> (node: Int32, key: UInt32) {
        let top = (nodes[0], keys[0])
        state[Int(top.0)].position = -1
        queued -= 1
        if queued > 0 { siftDown(from: 0, node: nodes[queued], key: keys[queued]) }
        return top
    }

    @inline(__always) private func siftUp(from start: Int, node: Int32, key: UInt32) {
        var hole = start
        while hole > 0 {
            let parent = (hole - 1) >> 2
            let parentKey = keys[parent]
            if parentKey <= key { break }
            keys[hole] = parentKey
            nodes[hole] = nodes[parent]
            state[Int(nodes[hole])].position = Int32(hole)
            hole = parent
        }
        keys[hole] = key
        nodes[hole] = node
        state[Int(node)].position = Int32(hole)
    }

    @inline(__always) private func siftDown(from start: Int, node: Int32, key: UInt32) {
        var hole = start
        while true {
            let first = 4 * hole + 1
            if first >= queued { break }
            var best = first
            var bestKey = keys[first]
            let last = Swift.min(first + 4, queued)
            var child = first + 1
            while child < last {
                let k = keys[child]
                if k < bestKey {
                    best = child
                    bestKey = k
                }
                child += 1
            }
            if bestKey >= key { break }
            keys[hole] = bestKey
            nodes[hole] = nodes[best]
            state[Int(nodes[hole])].position = Int32(hole)
            hole = best
        }
        keys[hole] = key
        nodes[hole] = node
        state[Int(node)].position = Int32(hole)
    }
}
