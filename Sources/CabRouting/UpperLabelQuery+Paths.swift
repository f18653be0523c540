/// Rebuilding the path of an answer: the up-paths to the meeting hub, then the shortcuts unpacked.
extension UpperLabelQuery {
    /// The edges of the answer of the last `duration(from:to:)` (sources scanned against a target fill), with
    /// the seed used at each end.
    /// - Complexity: the up-paths' lengths times the degrees, plus the unpacked edges.
    func path(of answer: Answer) -> (edges: [Int32], sourceSeed: Int, targetSeed: Int) {
        precondition(answer.found && filledFromTargets, "no path to rebuild")
        arcs.removeAll(keepingCapacity: true)
        var downFrom: Int
        var sourceSeed: Int
        var targetSeed = -1
        if answer.meet >= 0 {
            sourceSeed = appendClimbArcs(ahead, from: Int(answer.meet))
            downFrom = Int(answer.meet)
        } else {
            let hub = answer.hub
            let sourceBorder = ahead.border[Int(answer.border)]
            sourceSeed =
                sourceBorder.seed >= 0 ? Int(sourceBorder.seed) : appendClimbArcs(ahead, from: Int(sourceBorder.rank))
            appendLabelArcs(
                from: Int(sourceBorder.rank), to: hub, distance: labels.forward.duration[Int(answer.entry)],
                forward: true)
            // The target side, collected from its border up to the hub, then turned to path order.
            let targetBorder = behind.border[Int(tableBorder[Int(hub)])]
            let mark = arcs.count
            let entry = Self.entry(of: hub, in: labels.backward, at: Int(targetBorder.rank))
            precondition(entry >= 0, "the filled hub is in its border node's label")
            appendLabelArcs(
                from: Int(targetBorder.rank), to: hub, distance: labels.backward.duration[entry], forward: false)
            arcs[mark...].reverse()
            downFrom = Int(targetBorder.rank)
            targetSeed = Int(targetBorder.seed)
        }
        if targetSeed < 0 {
            // Down from `downFrom` to a target seed along the target climb's predecessors (in path order).
            var node = downFrom
            while behind.slots[node].predecessorArc >= 0 {
                arcs.append(behind.slots[node].predecessorArc)
                node = Int(behind.slots[node].predecessor)
            }
            targetSeed = Int(-1 - behind.slots[node].predecessorArc)
        }
        if overlapsMisses && touchesRoutes {
            // Touch every arc's list offset, then the lists' first lines, before the unpacking loop needs them
            // (its misses would otherwise follow one another, arc by arc).
            let listStart = hierarchy.unpacked.start.base
            let lists = hierarchy.unpacked.lists.base
            var sink: UInt32 = 0
            for arc in arcs { sink &+= UInt32(bitPattern: listStart[Int(arc)]) }
            for arc in arcs where listStart[Int(arc)] >= 0 {
                sink &+= UInt32(bitPattern: lists[Int(listStart[Int(arc)])])
            }
            touched &+= sink
        }
        var edges: [Int32] = []
        edges.reserveCapacity(arcs.count * 4)
        for arc in arcs { hierarchy.unpack(arc: arc, into: &edges, stack: &unpackStack) }
        return (edges, sourceSeed, targetSeed)
    }

    /// Appends, in path order, the source climb's arcs from its seed up to `rank`; returns the seed index.
    private func appendClimbArcs(_ c: Climb, from rank: Int) -> Int {
        let mark = arcs.count
        var node = rank
        while c.slots[node].predecessorArc >= 0 {
            arcs.append(c.slots[node].predecessorArc)
            node = Int(c.slots[node].predecessor)
        }
        arcs[mark...].reverse()
        return Int(-1 - c.slots[node].predecessorArc)
    }

    /// Appends the upward arcs from labelled `rank` to `hub`, `distance` away by `rank`'s label: at each node,
    /// an arc whose head's label holds the hub at exactly the remaining distance (labels are built that way).
    private func appendLabelArcs(from rank: Int, to hub: Int32, distance: UInt32, forward: Bool) {
        let h = hierarchy
        let direction = forward ? labels.forward : labels.backward
        let first = forward ? h.forwardFirst : h.backwardFirst
        let head = forward ? h.forwardHead : h.backwardHead
        let weight = forward ? h.forwardWeight : h.backwardWeight
        let arc = forward ? h.forwardArc : h.backwardArc
        var u = rank
        var remaining = distance
        while u != Int(hub) {
            var next = -1
            for k in Int(first[u])..<Int(first[u + 1]) {
                let x = head[k]
                let w = weight[k]
                guard x <= hub, w <= remaining else { continue }
                if x == hub {
                    // The hub's own label holds it at 0: no search.
                    guard w == remaining else { continue }
                    arcs.append(arc[k])
                    remaining = 0
                    next = Int(x)
                    break
                }
                let e = Self.entry(of: hub, in: direction, at: Int(x))
                if e >= 0 && direction.duration[e] &+ w == remaining {
                    arcs.append(arc[k])
                    remaining = direction.duration[e]
                    next = Int(x)
                    break
                }
            }
            precondition(next >= 0, "labels and hierarchy disagree")
            u = next
        }
    }

    /// The index of `hub` in the label of `rank` (binary search: hubs ascend), or -1.
    static func entry(of hub: Int32, in direction: HubLabels.Direction, at rank: Int) -> Int {
        var low = Int(direction.first[rank])
        var high = Int(direction.first[rank + 1])
        while low < high {
            let mid = (low + high) >> 1
            if direction.hub[mid] < hub { low = mid + 1 } else { high = mid }
        }
        return low < Int(direction.first[rank + 1]) && direction.hub[low] == hub ? low : -1
    }
}
