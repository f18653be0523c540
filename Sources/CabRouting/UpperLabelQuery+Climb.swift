/// The climb of `UpperLabelQuery`: the small upward search from a query's seeds that settles the unlabelled ranks
/// above them and stops at the labelled ranks it reaches (its border). Queries from precomputed climbs read the lists
/// of `LabelClimbs` instead; paths still come from this search.
extension UpperLabelQuery {
    /// Settles the unlabelled ranks above `seeds` and collects the labelled ranks reached into `c.border`; with
    /// `other` (a finished climb of the opposite direction), returns the best meeting at an unlabelled rank.
    @discardableResult
    func climb(_ c: Climb, _ seeds: [ContractionSeed], forward: Bool, other: Climb?) -> Answer {
        c.advanceStamp()
        c.border.removeAll(keepingCapacity: true)
        c.settled.removeAll(keepingCapacity: true)
        statistics.climbs += 1
        let cur = c.stamp
        var answer = Answer()
        var allLabelled = true
        for seed in seeds where Int(hierarchy.rankOf[Int(seed.node)]) < lowest { allLabelled = false }
        if allLabelled {
            // The common case near the top, and always with labels on every node: no search at all.
            // The border is the seeds themselves; nothing is written per rank (fewer cache misses per driver).
            seeding: for (index, seed) in seeds.enumerated() {
                let rank = hierarchy.rankOf[Int(seed.node)]
                for (i, b) in c.border.enumerated() where b.rank == rank {
                    if seed.durationMilliseconds < b.durationMilliseconds {
                        c.border[i] = BorderEntry(
                            rank: rank, durationMilliseconds: seed.durationMilliseconds,
                            lengthMeters: seed.lengthMeters, seed: Int32(index)
                        )
                    }
                    continue seeding
                }
                c.border.append(
                    BorderEntry(
                        rank: rank, durationMilliseconds: seed.durationMilliseconds, lengthMeters: seed.lengthMeters,
                        seed: Int32(index)))
            }
            c.indexBorder()
            count(c, settled: 0)
            return answer
        }
        statistics.searches += 1
        var settledCount = 0
        // The climb's lists as locals for the search loop (no exclusivity check per append).
        var border = c.border
        var settled = c.settled
        (c.border, c.settled) = ([], [])
        let heap = c.heap
        heap.clear()
        for (index, seed) in seeds.enumerated() {
            let rank = hierarchy.rankOf[Int(seed.node)]
            let r = Int(rank)
            if c.slots[r].stamp == cur {
                guard seed.durationMilliseconds < c.slots[r].distance else { continue }
                heap.decrease(rank, to: seed.durationMilliseconds)
            } else {
                heap.push(rank, key: seed.durationMilliseconds)
            }
            c.slots[r] = Slot(
                stamp: cur, distance: seed.durationMilliseconds, length: seed.lengthMeters,
                predecessorArc: -1 - Int32(index),
                predecessor: -1)
        }
        let h = hierarchy
        let upFirst = forward ? h.forwardFirst.base : h.backwardFirst.base
        let upHead = forward ? h.forwardHead.base : h.backwardHead.base
        let upWeight = forward ? h.forwardWeight.base : h.backwardWeight.base
        let upArc = forward ? h.forwardArc.base : h.backwardArc.base
        let downFirst = forward ? h.backwardFirst.base : h.forwardFirst.base
        let downHead = forward ? h.backwardHead.base : h.forwardHead.base
        let downWeight = forward ? h.backwardWeight.base : h.forwardWeight.base
        let arcLength = h.arcLength.base
        let slots = c.slots.base
        let otherSlots = other?.slots.base
        let otherStamp = other?.stamp ?? 0
        search: while !heap.isEmpty {
            let (node, d) = heap.pop()
            let u = Int(node)
            // Stall-on-demand: a higher rank reached with a shorter way down to here proves `d` is not shortest.
            var k = Int(downFirst[u])
            let downEnd = Int(downFirst[u + 1])
            while k < downEnd {
                let x = Int(downHead[k])
                if slots[x].stamp == cur && slots[x].distance &+ downWeight[k] < d { continue search }
                k += 1
            }
            if u >= lowest {
                border.append(BorderEntry(rank: node, durationMilliseconds: d, lengthMeters: slots[u].length))
                continue
            }
            settledCount += 1
            settled.append(BorderEntry(rank: node, durationMilliseconds: d, lengthMeters: slots[u].length))
            if let otherSlots, otherSlots[u].stamp == otherStamp {
                let total = d &+ otherSlots[u].distance
                if total < answer.durationMilliseconds {
                    answer.durationMilliseconds = total
                    answer.lengthMeters = slots[u].length + otherSlots[u].length
                    answer.meet = node
                }
            }
            k = Int(upFirst[u])
            let upEnd = Int(upFirst[u + 1])
            while k < upEnd {
                let x = upHead[k]
                let xi = Int(x)
                let candidate = d &+ upWeight[k]
                if slots[xi].stamp != cur {
                    heap.push(x, key: candidate)
                } else if candidate < slots[xi].distance && heap.contains(x) {
                    heap.decrease(x, to: candidate)
                } else {
                    k += 1
                    continue
                }
                slots[xi] = Slot(
                    stamp: cur, distance: candidate, length: slots[u].length + arcLength[Int(upArc[k])],
                    predecessorArc: upArc[k], predecessor: node)
                k += 1
            }
        }
        (c.border, c.settled) = (border, settled)
        c.indexBorder()
        count(c, settled: settledCount)
        return answer
    }

    func count(_ c: Climb, settled: Int) {
        statistics.settled += settled
        statistics.borderNodes += c.border.count
    }

    /// Sorts `entries[start...]` by rank, the shorter first where two share a rank. A climb's lists hold a handful of
    /// entries, so up to 64 an insertion sort in place (the standard library's sort, which allocates a buffer for its
    /// merges, was a fifth of the climbs' precomputation at N=700); longer ones by the standard library's.
    static func sortByRank(_ entries: inout [BorderEntry], from start: Int = 0) {
        @inline(__always) func before(_ a: BorderEntry, _ b: BorderEntry) -> Bool {
            a.rank < b.rank || (a.rank == b.rank && a.durationMilliseconds < b.durationMilliseconds)
        }
        guard entries.count - start > 1 else { return }
        guard entries.count - start <= 64 else {
            entries[start...].sort(by: before)
            return
        }
        entries.withUnsafeMutableBufferPointer { entries in
            var i = start + 1
            while i < entries.count {
                let x = entries[i]
                var j = i
                while j > start && before(x, entries[j - 1]) {
                    entries[j] = entries[j - 1]
                    j -= 1
                }
                entries[j] = x
                i += 1
            }
        }
    }
}
