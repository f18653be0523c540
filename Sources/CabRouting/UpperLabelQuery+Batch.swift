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
        batchBorder.removeAll(keepingCapacity: true)
        batchBorderEnd.removeAll(keepingCapacity: true)
        var answers: [Answer] = []
        answers.reserveCapacity(seedEnds.count)
        var start = 0
        for end in seedEnds {
            answers.append(climb(c, seeds[start..<end], along: lists, meeting: other))
            batchBorder.append(contentsOf: c.border)
            batchBorderEnd.append(batchBorder.count)
            start = end
        }
        // Every border node's label offsets, then the first cache lines of its hubs and durations (and one line in
        // every 16 entries after, which the hardware prefetcher may not have fetched yet).
        let labelFirst = direction.first.base
        let hubs = direction.hub.base
        let durations = direction.duration.base
        for b in batchBorder { sink &+= UInt32(bitPattern: labelFirst[Int(b.rank)]) }
        for b in batchBorder {
            var e = Int(labelFirst[Int(b.rank)])
            let end = Int(labelFirst[Int(b.rank) + 1])
            while e < end {
                sink &+= UInt32(bitPattern: hubs[e]) &+ durations[e]
                e += 16
            }
        }
        // The scans, query by query.
        start = 0
        for (i, end) in batchBorderEnd.enumerated() {
            c.border.removeAll(keepingCapacity: true)
            c.border.append(contentsOf: batchBorder[start..<end])
            c.dominated.removeAll(keepingCapacity: true)
            c.dominated.append(contentsOf: repeatElement(false, count: end - start))
            scanTable(c, direction, into: &answers[i], durationOnly: true)
            start = end
        }
        touched &+= sink
        return answers
    }
}
