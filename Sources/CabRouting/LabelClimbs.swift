/// The climbs of `UpperLabelQuery` precomputed for every rank below the labels (`HubLabels.lowestLabelledRank`),
/// in both directions, so that a duration query from an unlabelled node reads one short list instead of running
/// a search: the unlabelled ranks its climb settles (where the other end may meet it below the labels) and the
/// labelled ranks it reaches (its border), with their distances and lengths, sorted by rank. Border nodes that a
/// lower border node dominates are left out (see `UpperLabelQuery`'s table loops: the lower one's label already
/// holds every hub a path through them can have).
///
/// A snapped point has up to two seeds; the union of their lists, each shifted by its seed's offset, is what one
/// climb from both seeds would find, less some stalling, so answers are the same. Paths still come from the
/// search (the lists keep no predecessors).
///
/// On the N=700 grid (485k nodes, labels on the top 31 %) the lists hold about seven entries per unlabelled node
/// and direction: 12 bytes each, 53 MB next to 233 MB of labels, built in about 3 s.
struct LabelClimbs: Sendable {
    /// One settled or border rank of a climb.
    struct Entry: BitwiseCopyable, Equatable {
        /// The rank reached: below `lowestLabelledRank` a settled one, else a border node.
        var rank: Int32
        /// Milliseconds from the climb's start.
        var durationMilliseconds: UInt32
        /// Metres from the climb's start.
        var lengthMeters: Float
    }

    /// One direction's lists, CSR by rank (`lowestLabelledRank + 1` offsets).
    struct Direction: Sendable {
        let first: ContractionBuffer<Int32>
        let entries: ContractionBuffer<Entry>
    }

    /// Climbs along forward arcs (from sources).
    let forward: Direction
    /// Climbs along backward arcs (from targets).
    let backward: Direction

    /// Entries in both directions.
    var entryCount: Int { forward.entries.count + backward.entries.count }
    /// Bytes the lists take.
    var byteCount: Int {
        4 * (forward.first.count + backward.first.count) + MemoryLayout<Entry>.stride * entryCount
    }
}

extension UpperLabelQuery {
    /// Runs the climb from every unlabelled rank in both directions and keeps what it found (see `LabelClimbs`).
    /// - Complexity: one climb per unlabelled rank and direction (about a second for 330k unlabelled ranks).
    func precomputeClimbs() -> LabelClimbs {
        let saved = statistics
        defer { statistics = saved }
        return LabelClimbs(forward: precompute(forward: true), backward: precompute(forward: false))
    }

    /// `precomputeClimbs()` with the two directions on two threads, each with a query object of its own.
    static func precomputeClimbs(hierarchy: ContractionHierarchy, labels: HubLabels) -> LabelClimbs {
        final class Result: @unchecked Sendable {
            // `@unchecked Sendable`: written by the started thread, read only after it has been joined.
            var forward: LabelClimbs.Direction?
        }
        let result = Result()
        var backward: LabelClimbs.Direction?
        let inParallel = TwoThreads.run(
            { result.forward = UpperLabelQuery(hierarchy: hierarchy, labels: labels).precompute(forward: true) },
            { backward = UpperLabelQuery(hierarchy: hierarchy, labels: labels).precompute(forward: false) })
        guard inParallel, let forward = result.forward, let backward else {
            return UpperLabelQuery(hierarchy: hierarchy, labels: labels).precomputeClimbs()
        }
        return LabelClimbs(forward: forward, backward: backward)
    }

    private func precompute(forward: Bool) -> LabelClimbs.Direction {
        let c = forward ? ahead : behind
        let direction = forward ? labels.forward : labels.backward
        var first: [Int32] = [0]
        first.reserveCapacity(lowest + 1)
        var entries: [LabelClimbs.Entry] = []
        entries.reserveCapacity(lowest * 6)
        for r in 0..<lowest {
            climb(c, [ContractionSeed(node: Int(hierarchy.nodeAt[r]))], forward: forward, other: nil)
            markDominatedBorder(c, direction)
            // Both lists are sorted by rank, and every settled rank is below every border rank.
            for s in c.settled {
                entries.append(
                    .init(rank: s.rank, durationMilliseconds: s.durationMilliseconds, lengthMeters: s.lengthMeters))
            }
            for (index, b) in c.border.enumerated() where !c.dominated[index] {
                entries.append(
                    .init(rank: b.rank, durationMilliseconds: b.durationMilliseconds, lengthMeters: b.lengthMeters))
            }
            precondition(entries.count < Int(Int32.max), "climb lists too large")
            first.append(Int32(entries.count))
        }
        return .init(first: ContractionBuffer(first), entries: ContractionBuffer(entries))
    }

    /// Marks the border nodes of `c` that a lower border node dominates (as the table loops do on the fly).
    private func markDominatedBorder(_ c: Climb, _ direction: HubLabels.Direction) {
        let border = c.border
        for index in border.indices where !c.dominated[index] {
            let b = border[index]
            var next = index + 1
            for e in Int(direction.first[Int(b.rank)])..<Int(direction.first[Int(b.rank) + 1]) {
                guard next < border.count else { break }
                UpperLabelQuery.markDominated(
                    direction.hub[e], at: direction.duration[e] &+ b.durationMilliseconds, border: border,
                    dominated: &c.dominated, next: &next)
            }
        }
    }

    /// As `climb(_:_:forward:other:)` from the seeds' precomputed lists, without a search: fills `c.border` and
    /// `c.settled`, and with `other` (a finished climb of the opposite direction) returns the best meeting at an
    /// unlabelled rank both settle.
    /// - Complexity: the seeds' list lengths, plus a binary search in `other.settled` per settled entry.
    @discardableResult
    func climb(
        _ c: Climb, _ seeds: some Collection<ContractionSeed>, along lists: LabelClimbs.Direction, meeting other: Climb?
    ) -> Answer {
        // No slot is written, and none written before may be taken for this climb's.
        c.advanceStamp()
        c.border.removeAll(keepingCapacity: true)
        c.settled.removeAll(keepingCapacity: true)
        statistics.climbs += 1
        var answer = Answer()
        let rankOf = hierarchy.rankOf.base
        let first = lists.first.base
        let entries = lists.entries.base
        let lowest = Int32(self.lowest)
        for (index, seed) in seeds.enumerated() {
            let r = rankOf[Int(seed.node)]
            guard r < lowest else {
                c.border.append(
                    BorderEntry(
                        rank: r, durationMilliseconds: seed.durationMilliseconds, lengthMeters: seed.lengthMeters,
                        seed: Int32(index)))
                continue
            }
            for k in Int(first[Int(r)])..<Int(first[Int(r) + 1]) {
                let e = entries[k]
                let entry = BorderEntry(
                    rank: e.rank, durationMilliseconds: seed.durationMilliseconds &+ e.durationMilliseconds,
                    lengthMeters: seed.lengthMeters + e.lengthMeters)
                if e.rank >= lowest {
                    c.border.append(entry)
                } else {
                    c.settled.append(entry)
                    if let other, let met = Self.settledEntry(e.rank, in: other.settled) {
                        let total = entry.durationMilliseconds &+ met.durationMilliseconds
                        if total < answer.durationMilliseconds {
                            answer.durationMilliseconds = total
                            answer.lengthMeters = entry.lengthMeters + met.lengthMeters
                            answer.meet = e.rank
                        }
                    }
                }
            }
        }
        c.indexBorder()
        count(c, settled: 0)
        return answer
    }

    /// The entry of `rank` in a climb's settled list (sorted by rank, then duration: the shortest), or nil.
    @inline(__always)
    static func settledEntry(_ rank: Int32, in settled: [BorderEntry]) -> BorderEntry? {
        var low = 0
        var high = settled.count
        while low < high {
            let mid = (low + high) >> 1
            if settled[mid].rank < rank { low = mid + 1 } else { high = mid }
        }
        return low < settled.count && settled[low].rank == rank ? settled[low] : nil
    }

    /// The shortest duration (and its length) from any source seed to any target seed, without a path: both ends
    /// from their precomputed climbs when there are any (no search at all), else as `duration(from:to:)`.
    /// - Complexity: the seeds' lists plus O(border × label size).
    func durationWithoutPath(from sources: [ContractionSeed], to targets: [ContractionSeed]) -> Answer {
        guard labels.climbs != nil else { return duration(from: sources, to: targets) }
        durationFill(fromTargets: true, targets)
        return durationScan(fromSources: sources)
    }

    /// As `fill(fromTargets:)` (or `fill(fromSources:)` when `fromTargets` is false) for durations alone (no path
    /// will be rebuilt from it): the seeds' precomputed climbs instead of a search when there are any.
    /// With `durationsOnly`, only the durations are written (`fillTable(_:_:durationsOnly:)`): the scans after
    /// it must be `durationScans` (a later scan that reports a length or a path would read stale lengths).
    /// - Complexity: the seeds' lists plus the border labels.
    func durationFill(fromTargets: Bool, _ seeds: [ContractionSeed], durationsOnly: Bool = false) {
        guard let climbs = labels.climbs else {
            if fromTargets { fill(fromTargets: seeds) } else { fill(fromSources: seeds) }
            return
        }
        let c = fromTargets ? behind : ahead
        climb(c, seeds, along: fromTargets ? climbs.backward : climbs.forward, meeting: nil)
        fillTable(c, fromTargets ? labels.backward : labels.forward, durationsOnly: durationsOnly)
        filledFromTargets = fromTargets
    }
}
