/// Many duration scans against one table in passes over all of them, so that their cache misses overlap.
///
/// A many-to-one at metro size is bound by memory latency, not work: each driver is somewhere random in the
/// city, and its climb list, its border nodes' label offsets and their hubs and durations are each a miss that
/// the next step depends on. Scanned one driver at a time those misses follow one another (about ten per driver);
/// here each step runs for every driver before the next step starts, and a cheap pass first touches what the step
/// will read, so the processor has a miss per driver in flight at once. The answers are the ones
/// `durationScan(fromSources:)` gives, query by query: the same climbs and the same table scans.
extension UpperLabelQuery {
    /// `durationScan(fromSources:)` (or `fromTargets:` when `fromSources` is false) of every seed list, the lists
    /// given one after another in `seeds` with `seedEnds[i]` the end of list `i`. The answers carry durations
    /// only: no length (0) and nothing to rebuild a path from (the many-to-one of `FastRouter+RoadGraph` needs
    /// neither), which lets the label scans run without a branch per entry.
    /// - Precondition: the labels cover the upper hierarchy with precomputed climbs, and the last fill came from
    ///   the other side.
    /// - Complexity: as that many scans, plus a few loads per seed and per border node.
    func durationScans(seeds: [ContractionSeed], seedEnds: [Int], fromSources: Bool) -> [Answer] {
        precondition(filledFromTargets == fromSources, "batched scans after a fill from the other side")
        guard let climbs = labels.climbs else { preconditionFailure("batched scans need precomputed climbs") }
        let lists = fromSources ? climbs.forward : climbs.backward
        let direction = fromSources ? labels.forward : labels.backward
        let (c, other) = fromSources ? (ahead, behind) : (behind, ahead)
        let rankOf = hierarchy.rankOf.base
        let listFirst = lists.first.base
        let listEntries = lists.entries.base
        let lowest = Int32(self.lowest)
        var sink: UInt32 = 0
        // Ranks, then the climb lists' offsets, then their first entries: one miss per seed in flight per pass.
        for seed in seeds { sink &+= UInt32(bitPattern: rankOf[Int(seed.node)]) }
        for seed in seeds {
            let r = rankOf[Int(seed.node)]
            if r < lowest { sink &+= UInt32(bitPattern: listFirst[Int(r)]) }
        }
        for seed in seeds {
            let r = Int(rankOf[Int(seed.node)])
            guard r < lowest else { continue }
            let k = Int(listFirst[r])
            if k < Int(listFirst[r + 1]) { sink &+= listEntries[k].durationMilliseconds }
        }
        // The climbs, query by query (their lists are cached now), keeping each border and meeting below the labels.
        // The class's arrays are moved into locals for the loops (no exclusivity check per access).
        var border = batchBorder
        var borderEnd = batchBorderEnd
        batchBorder = []
        batchBorderEnd = []
        border.removeAll(keepingCapacity: true)
        borderEnd.removeAll(keepingCapacity: true)
        var answers: [Answer] = []
        answers.reserveCapacity(seedEnds.count)
        var start = 0
        if climbsInline {
            climbAll(
                seeds, seedEnds, lists: lists, meeting: other.settled, border: &border, borderEnd: &borderEnd,
                answers: &answers)
        } else {
            for end in seedEnds {
                answers.append(climb(c, seeds[start..<end], along: lists, meeting: other))
                border.append(contentsOf: c.border)
                borderEnd.append(border.count)
                start = end
            }
        }
        var dominated = batchDominated
        batchDominated = []
        var scanned = 0
        var skipped = 0
        sink &+= scanBorders(
            border, borderEnd, &dominated, &answers, first: direction.first.base, hubs: direction.hub,
            durations: direction.duration, scanned: &scanned, skipped: &skipped)
        batchDominated = dominated
        statistics.scannedEntries += scanned
        statistics.borderEntries += scanned + skipped
        batchBorder = border
        batchBorderEnd = borderEnd
        touched &+= sink
        return answers
    }

    /// The label part of `durationScans`: touches the border nodes' labels, finds the dominated ones, then scans
    /// each query's border against the table into `answers`; returns the sum of the words touched.
    @inline(__always)
    private func scanBorders(
        _ border: [BorderEntry], _ borderEnd: [Int], _ dominated: inout [Bool], _ answers: inout [Answer],
        first labelFirst: UnsafeMutablePointer<Int32>, hubs: LabelEntries.Hubs, durations: LabelEntries.Durations,
        scanned: inout Int, skipped: inout Int
    ) -> UInt32 {
        let entriesPerLine = LabelEntries.perCacheLine
        var sink: UInt32 = 0
        dominated.removeAll(keepingCapacity: true)
        dominated.append(contentsOf: repeatElement(false, count: border.count))
        // Every border node's label offsets, then the first cache lines of its hubs and durations, then (this
        // round) the dominance among each query's border nodes, which reads only the low end of the labels, so
        // that a dominated node's label is not read any further; then one line in every `entriesPerLine` entries of
        // the labels left (which the hardware prefetcher may not have fetched yet).
        for b in border { sink &+= UInt32(bitPattern: labelFirst[Int(b.rank)]) }
        if climbsInline {
            for b in border {
                let e = Int(labelFirst[Int(b.rank)])
                if e < Int(labelFirst[Int(b.rank) + 1]) { sink &+= UInt32(bitPattern: hubs[e]) &+ durations[e] }
            }
            border.withUnsafeBufferPointer { border in
                dominated.withUnsafeMutableBufferPointer { dominated in
                    for i in borderEnd.indices {
                        Self.markDominated(
                            border, (i == 0 ? 0 : borderEnd[i - 1])..<borderEnd[i], dominated, first: labelFirst,
                            hubs: hubs, durations: durations)
                    }
                }
            }
        }
        for (k, b) in border.enumerated() where !dominated[k] {
            var e = Int(labelFirst[Int(b.rank)]) + (climbsInline ? entriesPerLine : 0)
            let end = Int(labelFirst[Int(b.rank) + 1])
            while e < end {
                sink &+= UInt32(bitPattern: hubs[e]) &+ durations[e]
                e += entriesPerLine
            }
        }
        // The scans, query by query, on raw pointers.
        let marks = !climbsInline
        let table = tableDuration.base
        border.withUnsafeBufferPointer { border in
            dominated.withUnsafeMutableBufferPointer { dominated in
                for i in borderEnd.indices {
                    var best = UInt64(answers[i].durationMilliseconds)
                    Self.scanDurations(
                        border, (i == 0 ? 0 : borderEnd[i - 1])..<borderEnd[i], dominated, first: labelFirst,
                        hubs: hubs, durations: durations, table: table, marks: marks, best: &best, scanned: &scanned,
                        skipped: &skipped)
                    if best < UInt64(answers[i].durationMilliseconds) {
                        answers[i].durationMilliseconds = UInt32(best)
                        answers[i].meet = -1
                    }
                }
            }
        }
        return sink
    }

    /// `climb(_:_:along:meeting:)` of every query, appending each one's border (sorted by rank, then duration)
    /// to `border` and its end to `borderEnd`, and its best meeting below the labels with `settled` (the other
    /// end's settled ranks, sorted by rank) to `answers`. The same lists and entries as one climb per query, with
    /// no climb object in between: nothing is written but the three arrays, which are the caller's locals.
    /// - Complexity: the seeds' list lengths, plus a binary search in `settled` per settled entry.
    private func climbAll(
        _ seeds: [ContractionSeed], _ seedEnds: [Int], lists: LabelClimbs.Direction, meeting settled: [BorderEntry],
        border: inout [BorderEntry], borderEnd: inout [Int], answers: inout [Answer]
    ) {
        let rankOf = hierarchy.rankOf.base
        let listFirst = lists.first.base
        let listEntries = lists.entries.base
        let lowest = Int32(self.lowest)
        var start = 0
        for end in seedEnds {
            var answer = Answer()
            let queryStart = border.count
            for index in start..<end {
                let seed = seeds[index]
                let r = rankOf[Int(seed.node)]
                guard r < lowest else {
                    border.append(
                        BorderEntry(
                            rank: r, durationMilliseconds: seed.durationMilliseconds, lengthMeters: seed.lengthMeters,
                            seed: Int32(index - start)))
                    continue
                }
                for k in Int(listFirst[Int(r)])..<Int(listFirst[Int(r) + 1]) {
                    let e = listEntries[k]
                    let d = seed.durationMilliseconds &+ e.durationMilliseconds
                    if e.rank >= lowest {
                        border.append(
                            BorderEntry(
                                rank: e.rank, durationMilliseconds: d, lengthMeters: seed.lengthMeters + e.lengthMeters)
                        )
                    } else if !settled.isEmpty, let met = Self.settledEntry(e.rank, in: settled) {
                        let total = d &+ met.durationMilliseconds
                        if total < answer.durationMilliseconds {
                            answer.durationMilliseconds = total
                            answer.lengthMeters = seed.lengthMeters + e.lengthMeters + met.lengthMeters
                            answer.meet = e.rank
                        }
                    }
                }
            }
            // By rank, and the shorter first where two seeds reach one rank (as `Climb.indexBorder`).
            Self.sortByRank(&border, from: queryStart)
            // A rank reached twice (from both seeds) keeps its shorter entry: the longer one could only be
            // dominated in the scan, after its label had been read. Dropping it here spares reading it at all.
            if border.count > queryStart + 1 {
                var kept = queryStart + 1
                for k in (queryStart + 1)..<border.count where border[k].rank != border[kept - 1].rank {
                    border[kept] = border[k]
                    kept += 1
                }
                border.removeLast(border.count - kept)
            }
            answers.append(answer)
            borderEnd.append(border.count)
            start = end
        }
        statistics.climbs += seedEnds.count
        statistics.borderNodes += border.count
    }

    /// Marks the border nodes of one query (`border[range]`, sorted by rank) that a lower one dominates, as the scans
    /// do on the fly (see `UpperLabelQuery`'s table loops), reading each undominated label only up to the last
    /// border rank.
    @inline(__always)
    static func markDominated(
        _ border: UnsafeBufferPointer<BorderEntry>, _ range: Range<Int>, _ dominated: UnsafeMutableBufferPointer<Bool>,
        first: UnsafeMutablePointer<Int32>, hubs: LabelEntries.Hubs, durations: LabelEntries.Durations
    ) {
        for index in range where !dominated[index] {
            let b = border[index]
            var e = Int(first[Int(b.rank)])
            let end = Int(first[Int(b.rank) + 1])
            var next = index + 1
            while e < end && next < range.upperBound {
                let hub = hubs[e]
                while next < range.upperBound && border[next].rank < hub { next += 1 }
                if next < range.upperBound && border[next].rank == hub
                    && durations[e] &+ b.durationMilliseconds <= border[next].durationMilliseconds
                {
                    dominated[next] = true
                }
                e += 1
            }
        }
    }

    /// The durations-only scan of one query's border (`border[range]`, sorted by rank): `scanTable`'s dominance (a
    /// border node that a lower one's label reaches as cheaply is skipped), then per entry a table look-up and a
    /// minimum with no branch: an unfilled hub's slot holds `UInt32.max`, whose sum is never below a found
    /// duration, so the processor runs the loop's loads ahead instead of guessing at a branch that about half the
    /// hubs would take. The entries up to the last border node's rank also walk the border for dominance (unless
    /// `markDominated` did it before); the rest of each label is a tight loop of loads and a minimum.
    @inline(__always)
    static func scanDurations(
        _ border: UnsafeBufferPointer<BorderEntry>, _ range: Range<Int>, _ dominated: UnsafeMutableBufferPointer<Bool>,
        first: UnsafeMutablePointer<Int32>, hubs: LabelEntries.Hubs, durations: LabelEntries.Durations,
        table: UnsafeMutablePointer<UInt32>, marks: Bool, best: inout UInt64, scanned: inout Int, skipped: inout Int
    ) {
        var low = best
        for index in range {
            let b = border[index]
            guard var e = labelStart(b, dominated[index], first, scanned: &scanned, skipped: &skipped) else { continue }
            let end = Int(first[Int(b.rank) + 1])
            let shift = UInt64(b.durationMilliseconds)
            var next = index + 1
            while marks && e < end && next < range.upperBound {
                let hub = hubs[e]
                let d = durations[e]
                while next < range.upperBound && border[next].rank < hub { next += 1 }
                if next < range.upperBound && border[next].rank == hub
                    && d &+ b.durationMilliseconds <= border[next].durationMilliseconds
                {
                    dominated[next] = true
                }
                low = min(low, UInt64(table[Int(hub)]) &+ UInt64(d) &+ shift)
                e += 1
            }
            while e < end {
                low = min(low, UInt64(table[Int(hubs[e])]) &+ UInt64(durations[e]) &+ shift)
                e += 1
            }
        }
        best = low
    }
}
