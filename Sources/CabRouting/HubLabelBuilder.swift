import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Computes `HubLabels` top-down from a hierarchy (see `HubLabels`), on two threads when it can.
///
/// A rank's label (both directions) is its upward neighbours' labels merged, then pruned against the opposite
/// labels of its hubs. Every hub of a neighbour's label outranks that neighbour, and was itself finished before
/// the neighbour's label was pruned, so a rank can be labelled as soon as its upward neighbours are. Two workers
/// take ranks from the top down (one shared counter) and label each as soon as its neighbours are done (a flag per
/// rank); they wait only when a neighbour is the rank the other worker is on, which is rare below the top of the
/// hierarchy. Each finished label is written to a range of one shared buffer per direction that its worker
/// reserves when it knows the label's size. Since a label depends only on the labels above it, the labels are the
/// ones a single thread computes, whatever the order the ranks finish in; the cut where the budget runs out is
/// found afterwards in rank order, as one thread would find it.
struct HubLabelBuilder {
    let hierarchy: ContractionHierarchy
    let entryLimit: Int

    /// Labels every rank it can from the top down within `entryLimit` entries, on two threads when
    /// `onTwoThreads` (and a thread can be started), else on this one; nil when not even the top rank fits.
    func build(onTwoThreads: Bool) -> HubLabels? {
        let n = hierarchy.nodeCount
        guard n > 0 else { return nil }
        let shared = Shared(hierarchy: hierarchy, entryLimit: entryLimit)
        @Sendable func work() {
            var worker = Worker(shared)
            worker.run()
        }
        if !(onTwoThreads && TwoThreads.run(work, work)) { work() }
        // The cut, in rank order: the first rank (from the top) that brings the labels over budget, past what a
        // packed entry holds (more than ~1 M labelled ranks, or a duration over 74 hours), or was never labelled
        // stays unlabelled with every rank below it (their queries climb to the ranks above).
        var total = 0
        var r = n - 1
        while r >= 0 {
            guard shared.done[r].load(ordering: .acquiring) != 0, n - r <= LabelEntries.maxHubOffset + 1,
                shared.tooLong[r] == 0
            else { break }
            total += shared.forward.count(of: r) + shared.backward.count(of: r)
            if total > entryLimit { break }
            r -= 1
        }
        let lowest = r + 1
        guard lowest < n else { return nil }
        // Each direction's build buffer is released once packed, before the other is packed.
        let forwardLabels = shared.forward.finish(lowest: lowest)
        shared.forward.release()
        let backwardLabels = shared.backward.finish(lowest: lowest)
        shared.backward.release()
        return HubLabels(
            nodeCount: n, lowestLabelledRank: lowest, rankOf: hierarchy.rankOf, forward: forwardLabels,
            backward: backwardLabels)
    }

    /// One direction's labels in the making: one buffer that each worker reserves ranges of, and per rank where its
    /// label is.
    final class Growing: @unchecked Sendable {
        // `@unchecked Sendable`: a rank's range and entries are written by the worker that labels it, before that
        // worker sets the rank's `done` flag (releasing); other workers read them only after loading that flag
        // (acquiring), directly or through the labels that were built from it.
        var hub: ContractionBuffer<Int32>
        var duration: ContractionBuffer<UInt32>
        var length: ContractionBuffer<Float>
        let start: ContractionBuffer<Int32>
        let end: ContractionBuffer<Int32>
        let capacity: Int
        /// Entries reserved so far.
        private let reserved = Atomic<Int>(0)

        init(nodeCount: Int, capacity: Int) {
            self.capacity = capacity
            start = ContractionBuffer(repeating: 0, count: nodeCount)
            end = ContractionBuffer(repeating: 0, count: nodeCount)
            // Address space for the whole budget: pages become resident as entries are written.
            hub = ContractionBuffer(uninitializedCount: capacity)
            duration = ContractionBuffer(uninitializedCount: capacity)
            length = ContractionBuffer(uninitializedCount: capacity)
        }

        /// Entries reserved so far, by every worker.
        var count: Int { reserved.load(ordering: .relaxed) }

        /// The entries of `rank`'s label (once it is done).
        @inline(__always) func count(of rank: Int) -> Int { Int(end[rank]) - Int(start[rank]) }

        /// The first of `entries` consecutive entries no other worker will write.
        func reserve(_ entries: Int) -> Int {
            let at = reserved.wrappingAdd(entries, ordering: .relaxed).oldValue
            precondition(at + entries <= capacity, "label buffer overrun")
            return at
        }

        /// The labels of ranks `lowest...` in rank order, hubs and durations packed (`LabelEntries`).
        func finish(lowest: Int) -> HubLabels.Direction {
            let n = start.count
            let first = ContractionBuffer<Int32>(repeating: 0, count: n + 1)
            var total = 0
            for r in lowest..<n {
                first[r] = Int32(total)
                total += count(of: r)
                first[r + 1] = Int32(total)
            }
            // One pass over the ranks' ranges, straight into the packed entries and the lengths.
            let lengths = ContractionBuffer<Float>(uninitializedCount: total)
            let entries = LabelEntries(uninitializedCount: total, lowest: Int32(lowest))
            let (hub, duration, length) = (hub.base, duration.base, length.base)
            var out = 0
            for r in lowest..<n {
                for e in Int(start[r])..<Int(end[r]) {
                    entries.store(out, hub: hub[e], duration: duration[e])
                    lengths[out] = length[e]
                    out += 1
                }
            }
            return .init(first: first, entries: entries, length: lengths)
        }

        /// Gives the build buffers' memory back (the finished labels are copies).
        func release() {
            hub = ContractionBuffer(uninitializedCount: 0)
            duration = ContractionBuffer(uninitializedCount: 0)
            length = ContractionBuffer(uninitializedCount: 0)
        }
    }

    /// What the workers share.
    final class Shared: @unchecked Sendable {
        // `@unchecked Sendable`: the hierarchy is read-only; the counters are atomics; `done` flags publish each
        // rank's label (see `Growing`); `tooLong[r]` is written by the worker labelling `r` before `done[r]`.
        let hierarchy: ContractionHierarchy
        let entryLimit: Int
        let forward: Growing
        let backward: Growing
        /// Per rank: 1 once both directions of its label are written.
        let done: UnsafeMutablePointer<Atomic<UInt8>>
        /// Per rank: 1 when its label holds a duration a packed entry cannot.
        let tooLong: ContractionBuffer<UInt8>
        /// The next rank to take (counts down; below 0 when every rank is taken).
        let next: Atomic<Int>
        /// Set once no further rank should be taken (over budget or past what packed entries hold).
        let stop = Atomic<Bool>(false)

        init(hierarchy: ContractionHierarchy, entryLimit: Int) {
            let n = hierarchy.nodeCount
            self.hierarchy = hierarchy
            self.entryLimit = entryLimit
            // A label holds at most one entry per rank; each of two workers may add one label past the budget
            // before it sees the stop.
            let capacity = min(entryLimit, n * n) + 2 * (n + 1)
            forward = Growing(nodeCount: n, capacity: capacity)
            backward = Growing(nodeCount: n, capacity: capacity)
            done = .allocate(capacity: n)
            for r in 0..<n { (done + r).initialize(to: Atomic(0)) }
            tooLong = ContractionBuffer(repeating: 0, count: n)
            next = Atomic(n - 1)
        }

        deinit {
            done.deinitialize(count: hierarchy.nodeCount)
            done.deallocate()
        }
    }

    /// One thread's share of the work, with scratch of its own.
    struct Worker {
        let shared: Shared
        let hierarchy: ContractionHierarchy
        // The candidate label of the rank being labelled, dense by hub rank; `UInt32.max` where a rank is no
        // candidate (each label resets the slots it set), so that the pruning reads one word per hub.
        private let candidateDuration: ContractionBuffer<UInt32>
        private let candidateLength: ContractionBuffer<Float>
        private var hubs: [Int32] = []
        private var kept: [Int32] = []

        init(_ shared: Shared) {
            self.shared = shared
            hierarchy = shared.hierarchy
            candidateDuration = ContractionBuffer(repeating: .max, count: hierarchy.nodeCount)
            candidateLength = ContractionBuffer(repeating: 0, count: hierarchy.nodeCount)
        }

        /// Takes ranks from the top down and labels them until none is left or the budget is spent.
        mutating func run() {
            let n = hierarchy.nodeCount
            let h = hierarchy
            while !shared.stop.load(ordering: .relaxed) {
                let r = shared.next.wrappingSubtract(1, ordering: .relaxed).oldValue
                guard r >= 0, n - r <= LabelEntries.maxHubOffset + 1 else { break }
                waitForNeighbours(of: r, first: h.forwardFirst, head: h.forwardHead)
                waitForNeighbours(of: r, first: h.backwardFirst, head: h.backwardHead)
                let forwardLongest = label(
                    rank: r, into: shared.forward, opposite: shared.backward, first: h.forwardFirst,
                    head: h.forwardHead, weight: h.forwardWeight, arc: h.forwardArc)
                let backwardLongest = label(
                    rank: r, into: shared.backward, opposite: shared.forward, first: h.backwardFirst,
                    head: h.backwardHead, weight: h.backwardWeight, arc: h.backwardArc)
                let tooLong = max(forwardLongest, backwardLongest) > LabelEntries.maxDuration
                if tooLong { shared.tooLong[r] = 1 }
                shared.done[r].store(1, ordering: .releasing)
                if tooLong || shared.forward.count + shared.backward.count > shared.entryLimit {
                    shared.stop.store(true, ordering: .relaxed)
                }
            }
        }

        /// Waits until every upward neighbour of `r` (along `head`) is labelled; they all outrank `r`, so they were
        /// taken before it, and only one the other worker is still on can be missing.
        private func waitForNeighbours(of r: Int, first: ContractionBuffer<Int32>, head: ContractionBuffer<Int32>) {
            for k in Int(first[r])..<Int(first[r + 1]) {
                let x = Int(head[k])
                var spins = 0
                while shared.done[x].load(ordering: .acquiring) == 0 {
                    spins += 1
                    if spins > 100 { sched_yield() }
                }
            }
        }

        /// Computes the label of `rank` in one direction from its upward neighbours' labels, prunes it against the
        /// opposite direction's labels of its hubs, and writes it; returns its longest duration.
        private mutating func label(
            rank r: Int, into labels: Growing, opposite: Growing, first: ContractionBuffer<Int32>,
            head: ContractionBuffer<Int32>, weight: ContractionBuffer<UInt32>, arc: ContractionBuffer<Int32>
        ) -> UInt32 {
            let candidate = candidateDuration.base
            let candidateLength = candidateLength.base
            var hubs = self.hubs
            var kept = self.kept
            self.hubs = []
            self.kept = []
            defer {
                self.hubs = hubs
                self.kept = kept
            }
            hubs.removeAll(keepingCapacity: true)
            kept.removeAll(keepingCapacity: true)
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
            let oppositeHub = opposite.hub.base
            let oppositeDuration = opposite.duration.base
            var longest: UInt32 = 0
            for hub in hubs {
                let h = Int(hub)
                let d = UInt64(candidate[h])
                var pruned = false
                if h != r {
                    // Any common hub x with candidate(x) + opposite(h)[x] < d proves d is not a shortest distance
                    // (a rank that is no candidate holds `UInt32.max`, whose sum is never below d).
                    for e in Int(opposite.start[h])..<Int(opposite.end[h])
                    where UInt64(candidate[Int(oppositeHub[e])]) &+ UInt64(oppositeDuration[e]) < d {
                        pruned = true
                        break
                    }
                }
                if !pruned {
                    kept.append(hub)
                    longest = max(longest, UInt32(d))
                }
            }
            let at = labels.reserve(kept.count)
            for (i, hub) in kept.enumerated() {
                labelHub[at + i] = hub
                labelDuration[at + i] = candidate[Int(hub)]
                labelLength[at + i] = candidateLength[Int(hub)]
            }
            labels.start[r] = Int32(at)
            labels.end[r] = Int32(at + kept.count)
            // The next label starts from no candidate.
            for hub in hubs { candidate[Int(hub)] = .max }
            return longest
        }
    }
}
