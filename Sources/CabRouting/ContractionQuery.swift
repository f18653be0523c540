/// A reusable point-to-point search on a `ContractionHierarchy`: two upward Dijkstra searches with
/// stall-on-demand, on timestamped arrays so that nothing is cleared between queries.
///
/// Holds scratch memory for one query at a time: not `Sendable`; make one per thread.
final class ContractionQuery {
    /// The hierarchy searched.
    let hierarchy: ContractionHierarchy
    private let forward: Side
    private let backward: Side
    private var stamp: UInt32 = 0

    /// Scratch for one search direction, indexed by rank.
    final class Side {
        let distance: ContractionBuffer<UInt32>
        let stamps: ContractionBuffer<UInt32>
        /// The arc a node was reached by, or `-1 - seedIndex` for a seed.
        let predecessorArc: ContractionBuffer<Int32>
        /// The rank a node was reached from.
        let predecessor: ContractionBuffer<Int32>
        let heap: ContractionHeap

        init(nodeCount: Int) {
            distance = ContractionBuffer(repeating: 0, count: nodeCount)
            stamps = ContractionBuffer(repeating: 0, count: nodeCount)
            predecessorArc = ContractionBuffer(repeating: -1, count: nodeCount)
            predecessor = ContractionBuffer(repeating: -1, count: nodeCount)
            heap = ContractionHeap(capacity: nodeCount)
        }
    }

    /// What a search found: the duration and the rank where the two searches met (-1 when unreachable).
    struct Meeting {
        var durationMilliseconds: UInt32
        var meet: Int32
    }

    init(hierarchy: ContractionHierarchy) {
        self.hierarchy = hierarchy
        forward = Side(nodeCount: hierarchy.nodeCount)
        backward = Side(nodeCount: hierarchy.nodeCount)
    }

    private func nextStamp() {
        stamp &+= 1
        if stamp == 0 {
            forward.stamps.fill(0)
            backward.stamps.fill(0)
            stamp = 1
        }
    }

    private func seed(_ side: Side, _ seeds: [ContractionSeed]) {
        side.heap.clear()
        for (index, seed) in seeds.enumerated() {
            let r = hierarchy.rankOf[Int(seed.node)]
            let i = Int(r)
            if side.stamps[i] == stamp {
                if seed.durationMilliseconds < side.distance[i] {
                    side.distance[i] = seed.durationMilliseconds
                    side.predecessorArc[i] = -1 - Int32(index)
                    side.heap.decrease(r, to: seed.durationMilliseconds)
                }
            } else {
                side.stamps[i] = stamp
                side.distance[i] = seed.durationMilliseconds
                side.predecessorArc[i] = -1 - Int32(index)
                side.predecessor[i] = -1
                side.heap.push(r, key: seed.durationMilliseconds)
            }
        }
    }

    /// The shortest duration from any source seed to any target seed, and where the searches met.
    /// - Complexity: the two upward search spaces (a few hundred nodes on a city).
    func run(from sources: [ContractionSeed], to targets: [ContractionSeed]) -> Meeting {
        nextStamp()
        seed(forward, sources)
        seed(backward, targets)
        let h = hierarchy
        let cur = stamp
        var best = UInt32.max
        var meet: Int32 = -1
        let fHeap = forward.heap
        let bHeap = backward.heap
        while true {
            let fMin = fHeap.isEmpty ? UInt32.max : fHeap.minKey
            let bMin = bHeap.isEmpty ? UInt32.max : bHeap.minKey
            if min(fMin, bMin) >= best { break }
            if fMin <= bMin {
                settle(
                    forward, other: backward, stamp: cur, best: &best, meet: &meet,
                    upFirst: h.forwardFirst.base, upHead: h.forwardHead.base, upWeight: h.forwardWeight.base,
                    upArc: h.forwardArc.base, downFirst: h.backwardFirst.base, downHead: h.backwardHead.base,
                    downWeight: h.backwardWeight.base)
            } else {
                settle(
                    backward, other: forward, stamp: cur, best: &best, meet: &meet,
                    upFirst: h.backwardFirst.base, upHead: h.backwardHead.base, upWeight: h.backwardWeight.base,
                    upArc: h.backwardArc.base, downFirst: h.forwardFirst.base, downHead: h.forwardHead.base,
                    downWeight: h.forwardWeight.base)
            }
        }
        return Meeting(durationMilliseconds: best, meet: meet)
    }

    /// Pops the side's closest node, checks whether the searches meet there, and relaxes its upward arcs unless
    /// a higher node proves it was reached the long way round (stall-on-demand).
    @inline(__always) private func settle(
        _ side: Side, other: Side, stamp cur: UInt32, best: inout UInt32, meet: inout Int32,
        upFirst: UnsafeMutablePointer<Int32>, upHead: UnsafeMutablePointer<Int32>,
        upWeight: UnsafeMutablePointer<UInt32>, upArc: UnsafeMutablePointer<Int32>,
        downFirst: UnsafeMutablePointer<Int32>, downHead: UnsafeMutablePointer<Int32>,
        downWeight: UnsafeMutablePointer<UInt32>
    ) {
        let dist = side.distance.base
        let stamps = side.stamps.base
        let (node, d) = side.heap.pop()
        let u = Int(node)
        if other.stamps[u] == cur {
            let total = d &+ other.distance[u]
            if total < best {
                best = total
                meet = node
            }
        }
        var k = Int(downFirst[u])
        let downEnd = Int(downFirst[u + 1])
        while k < downEnd {
            let x = Int(downHead[k])
            if stamps[x] == cur && dist[x] &+ downWeight[k] < d { return }
            k += 1
        }
        k = Int(upFirst[u])
        let upEnd = Int(upFirst[u + 1])
        let heap = side.heap
        while k < upEnd {
            let x = upHead[k]
            let xi = Int(x)
            let candidate = d &+ upWeight[k]
            if stamps[xi] != cur {
                stamps[xi] = cur
                dist[xi] = candidate
                side.predecessorArc[xi] = upArc[k]
                side.predecessor[xi] = node
                heap.push(x, key: candidate)
            } else if candidate < dist[xi] && heap.contains(x) {
                dist[xi] = candidate
                side.predecessorArc[xi] = upArc[k]
                side.predecessor[xi] = node
                heap.decrease(x, to: candidate)
            }
            k += 1
        }
    }

    /// The path of the last `run` that returned `meeting`: original edge ids in order, the seeds used at each
    /// end, and the length in metres including the seeds' lengths.
    func path(of meeting: Meeting, sources: [ContractionSeed], targets: [ContractionSeed])
        -> (edges: [Int32], sourceSeed: Int, targetSeed: Int, lengthMeters: Double)
    {
        precondition(meeting.meet >= 0, "no path to unpack")
        var upArcs: [Int32] = []
        var node = Int(meeting.meet)
        while forward.predecessorArc[node] >= 0 {
            upArcs.append(forward.predecessorArc[node])
            node = Int(forward.predecessor[node])
        }
        let sourceSeed = Int(-1 - forward.predecessorArc[node])
        var edges: [Int32] = []
        edges.reserveCapacity(upArcs.count * 4)
        var length = Double(sources[sourceSeed].lengthMeters)
        for arc in upArcs.reversed() {
            hierarchy.unpack(arc: arc, into: &edges)
            length += Double(hierarchy.arcLength[Int(arc)])
        }
        node = Int(meeting.meet)
        while backward.predecessorArc[node] >= 0 {
            let arc = backward.predecessorArc[node]
            hierarchy.unpack(arc: arc, into: &edges)
            length += Double(hierarchy.arcLength[Int(arc)])
            node = Int(backward.predecessor[node])
        }
        let targetSeed = Int(-1 - backward.predecessorArc[node])
        length += Double(targets[targetSeed].lengthMeters)
        return (edges, sourceSeed, targetSeed, length)
    }
}
