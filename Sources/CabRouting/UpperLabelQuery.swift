/// Queries by hub labels, including labels that cover only the upper hierarchy (`HubLabels.lowestLabelledRank`):
/// point-to-point durations and routes, many-to-one (every candidate driver to one pickup) and one-to-many.
///
/// Each end climbs from its seeds: a seed at a labelled rank is used as it is; otherwise a small upward Dijkstra
/// (stall-on-demand) settles the unlabelled ranks above the seed and stops at the labelled ranks it reaches, the
/// end's *border*. A shortest path's highest node is either unlabelled, and then both climbs settle it (they
/// meet there), or labelled, and then each climb reaches a border node below it whose label holds it with the
/// exact distance. So one end's border labels, shifted by their climb distances, fill a table by hub (once, for
/// the single end of a many-to-one), and the other end's border labels scan that table. With labels on every
/// node the climbs are just the seeds, and this is a plain label scan.
///
/// Routes come from the same answer: the climb's predecessors down to the seeds, then from a border node up to
/// the hub by following, at each node, the upward arc whose head's label still holds the hub at the remaining
/// distance; then the hierarchy's arcs unpack into edges.
///
/// Holds scratch memory sized to the graph: not `Sendable`; make one per thread.
package final class UpperLabelQuery {
    let hierarchy: ContractionHierarchy
    let labels: HubLabels
    let lowest: Int
    /// The climb from the sources (forward arcs) and the one from the targets (backward arcs).
    let ahead: Climb
    let behind: Climb
    // The table: one bit per rank says whether the hub is filled (n/8 bytes: it stays in cache, and most hubs a
    // scan asks about are not there), then per hub the duration (`UInt32.max` where not filled), and for the winner
    // only the length and the border entry that filled it. A fill clears the bits and durations it set last time.
    let filled: ContractionBuffer<UInt64>
    private var filledHubs: [Int32] = []
    let tableDuration: ContractionBuffer<UInt32>
    private let tableLength: ContractionBuffer<Float>
    let tableBorder: ContractionBuffer<Int32>
    /// Which climb filled the table last (so a later scan knows the direction of the table).
    var filledFromTargets = true
    var arcs: [Int32] = []
    /// Work counters since this query object was made (for `cab bench route`; they do not depend on the machine).
    package var statistics = Statistics()

    /// What the climbs and scans did, summed over every climb.
    package struct Statistics: Sendable, Equatable {
        /// Climbs run (one per end per query; a many-to-one climbs once per driver plus once for the pickup).
        package var climbs = 0
        /// Climbs that needed a search (some seed below the labels).
        package var searches = 0
        /// Unlabelled ranks settled by the searches.
        package var settled = 0
        /// Border nodes reached.
        package var borderNodes = 0
        /// Label entries of every border node reached.
        package var borderEntries = 0
        /// Label entries actually scanned (dominated border nodes are skipped).
        package var scannedEntries = 0

        /// No work yet.
        package init() {}
    }
    var unpackStack: [Int32] = []
    /// Batched scans (`UpperLabelQuery+Batch`): every query's border, one after the other, and where each ends.
    var batchBorder: [BorderEntry] = []
    var batchBorderEnd: [Int] = []
    var batchDominated: [Bool] = []
    /// Whether a batched many-to-one climbs every query in one pass (`climbAll`, duplicates dropped), fills the
    /// table with durations alone and finds dominated border nodes before reading their labels; off for the earlier
    /// rounds' climb object per query, full fill and dominance found during the scans (the benchmark's same-run
    /// comparison).
    package var climbsInline = true
    /// Whether a route touches ahead the arcs' unpacked lists (with `overlapsMisses`): 4.2 against 5.6 µs of
    /// unpacking per route on the N=700 grid. Off only for the benchmark's same-run comparison. (Touching the table
    /// slots of a route's fill, and the edges' arrays before the geometry, cost more than they saved, 0.9 and 2 µs,
    /// and were removed with the edges' route records, `RoadGraph.routeEdges`.)
    package var touchesRoutes = true
    /// Whether a route reads its edges' records (`RoadGraph.routeEdges`); off for the previous rounds' reads of
    /// the graph's arrays (the benchmark's same-run comparison).
    package var readsRouteEdges = true
    /// The sum of what the touching loads (see `TouchSink`) read, kept in this per-thread object so that the
    /// optimizer cannot drop them and no other thread's cache line is written.
    var touched: UInt32 = 0
    /// Whether many-to-one queries run batched and path rebuilding touches ahead (`UpperLabelQuery+Batch`); off
    /// only for the benchmark's same-run comparison with one query at a time.
    package var overlapsMisses = true

    /// A reached labelled rank: the border of a climb.
    struct BorderEntry {
        var rank: Int32
        var durationMilliseconds: UInt32
        var lengthMeters: Float
        /// The seed it is, when the climb needed no search (its slots are then left untouched), else -1.
        var seed: Int32 = -1
    }

    /// One rank's state in a climb, together in 20 bytes so that reaching a rank touches one cache line.
    struct Slot {
        var stamp: UInt32
        var distance: UInt32
        var length: Float
        /// The arc it was reached by, or `-1 - seedIndex` for a seed.
        var predecessorArc: Int32
        /// The rank it was reached from.
        var predecessor: Int32
    }

    /// One climb's scratch, indexed by rank, timestamped so that nothing is cleared between queries.
    final class Climb {
        let slots: ContractionBuffer<Slot>
        let heap: ContractionHeap
        var stamp: UInt32 = 0
        var border: [BorderEntry] = []
        /// Per border entry: proved useless by a lower border node (see the table's loops).
        var dominated: [Bool] = []
        /// The unlabelled ranks settled, with their distances (where the other end may meet this one below the
        /// labels), sorted by rank once the climb is over.
        var settled: [BorderEntry] = []

        init(nodeCount: Int) {
            slots = ContractionBuffer(
                repeating: Slot(stamp: 0, distance: 0, length: 0, predecessorArc: -1, predecessor: -1), count: nodeCount
            )
            heap = ContractionHeap(capacity: nodeCount)
            border.reserveCapacity(64)
            dominated.reserveCapacity(64)
            settled.reserveCapacity(64)
        }

        /// Starts a new climb: every slot written before is stale from now on.
        func advanceStamp() {
            stamp &+= 1
            if stamp == 0 {
                for r in 0..<slots.count { slots[r].stamp = 0 }
                stamp = 1
            }
        }

        /// Sorts the border by rank, so that a label scan can walk the border alongside its ascending hubs.
        func indexBorder() {
            dominated.removeAll(keepingCapacity: true)
            dominated.append(contentsOf: repeatElement(false, count: border.count))
            // By rank, and the shorter first where two seeds reach one rank (the longer one is then dominated).
            UpperLabelQuery.sortByRank(&border)
            UpperLabelQuery.sortByRank(&settled)
        }
    }

    /// The best answer found: its duration and length, and how to rebuild its path.
    struct Answer {
        var durationMilliseconds: UInt32 = .max
        var lengthMeters: Float = 0
        /// Where the climbs met below the labels (a rank), or -1.
        var meet: Int32 = -1
        /// Otherwise the hub, the scanning climb's border index and its label entry.
        var hub: Int32 = -1
        var border: Int32 = -1
        var entry: Int32 = -1
        var found: Bool { durationMilliseconds != .max }
    }

    init(hierarchy: ContractionHierarchy, labels: HubLabels) {
        precondition(labels.nodeCount == hierarchy.nodeCount, "labels of another hierarchy")
        self.hierarchy = hierarchy
        self.labels = labels
        lowest = labels.lowestLabelledRank
        ahead = Climb(nodeCount: hierarchy.nodeCount)
        behind = Climb(nodeCount: hierarchy.nodeCount)
        filled = ContractionBuffer(repeating: 0, count: hierarchy.nodeCount / 64 + 1)
        tableDuration = ContractionBuffer(repeating: .max, count: hierarchy.nodeCount)
        tableLength = ContractionBuffer(repeating: 0, count: hierarchy.nodeCount)
        tableBorder = ContractionBuffer(repeating: 0, count: hierarchy.nodeCount)
    }

    // MARK: Queries

    /// The shortest duration (and its length) from any source seed to any target seed.
    /// - Complexity: two climbs plus O(border × label size).
    func duration(from sources: [ContractionSeed], to targets: [ContractionSeed]) -> Answer {
        fill(fromTargets: targets)
        return scan(fromSources: sources)
    }

    /// Durations from each source to one target.
    /// - Complexity: one climb and table fill, then per source a climb plus O(border × label size).
    func durations(from sources: [[ContractionSeed]], to target: [ContractionSeed]) -> [Answer] {
        fill(fromTargets: target)
        return sources.map { durationScan(fromSources: $0) }
    }

    /// Durations from one source to each target.
    /// - Complexity: as `durations(from:to:)` with the roles swapped.
    func durations(from source: [ContractionSeed], to targets: [[ContractionSeed]]) -> [Answer] {
        fill(fromSources: source)
        return targets.map { durationScan(fromTargets: $0) }
    }

    /// Climbs from the target seeds and writes their border labels into the table.
    func fill(fromTargets seeds: [ContractionSeed]) {
        climb(behind, seeds, forward: false, other: nil)
        fillTable(behind, labels.backward)
        filledFromTargets = true
    }

    /// Climbs from the source seeds and writes their border labels into the table.
    func fill(fromSources seeds: [ContractionSeed]) {
        climb(ahead, seeds, forward: true, other: nil)
        fillTable(ahead, labels.forward)
        filledFromTargets = false
    }

    /// The best path from the source seeds to the targets of the last `fill(fromTargets:)`.
    func scan(fromSources seeds: [ContractionSeed]) -> Answer {
        precondition(filledFromTargets, "scan from sources after a fill from targets")
        var answer = climb(ahead, seeds, forward: true, other: behind)
        scanTable(ahead, labels.forward, into: &answer)
        return answer
    }

    /// The best path from the sources of the last `fill(fromSources:)` to the target seeds.
    func scan(fromTargets seeds: [ContractionSeed]) -> Answer {
        precondition(!filledFromTargets, "scan from targets after a fill from sources")
        var answer = climb(behind, seeds, forward: false, other: ahead)
        scanTable(behind, labels.backward, into: &answer)
        return answer
    }

    /// As `scan(fromSources:)` for a duration alone (no path will be rebuilt): with labels on every node the
    /// seeds' labels scan the table straight away, without a climb (the many-to-one hot path on road maps); below
    /// the labels, the seeds' precomputed climbs (`LabelClimbs`) replace the search.
    func durationScan(fromSources seeds: [ContractionSeed]) -> Answer {
        precondition(filledFromTargets, "scan from sources after a fill from targets")
        if labels.coversEveryNode { return scanSeeds(seeds, labels.forward) }
        guard let climbs = labels.climbs else { return scan(fromSources: seeds) }
        var answer = climb(ahead, seeds, along: climbs.forward, meeting: behind)
        scanTable(ahead, labels.forward, into: &answer)
        return answer
    }

    /// As `scan(fromTargets:)` for a duration alone (see `durationScan(fromSources:)`).
    func durationScan(fromTargets seeds: [ContractionSeed]) -> Answer {
        precondition(!filledFromTargets, "scan from targets after a fill from sources")
        if labels.coversEveryNode { return scanSeeds(seeds, labels.backward) }
        guard let climbs = labels.climbs else { return scan(fromTargets: seeds) }
        var answer = climb(behind, seeds, along: climbs.backward, meeting: ahead)
        scanTable(behind, labels.backward, into: &answer)
        return answer
    }

    /// Every seed's own label against the table (all seeds are labelled).
    private func scanSeeds(_ seeds: [ContractionSeed], _ direction: HubLabels.Direction) -> Answer {
        let hubs = direction.hub
        let durations = direction.duration
        let first = direction.first.base
        let bits = filled.base
        let table = tableDuration.base
        let rankOf = hierarchy.rankOf.base
        var best = UInt64(UInt32.max)
        var bestEntry = -1
        var bestSeed = 0
        for index in seeds.indices {
            let seed = seeds[index]
            let r = Int(rankOf[Int(seed.node)])
            var e = Int(first[r])
            let end = Int(first[r + 1])
            let shift = UInt64(seed.durationMilliseconds)
            while e < end {
                let h = Int(hubs[e])
                if bits[h >> 6] & (1 << UInt64(h & 63)) != 0 {
                    let d = UInt64(table[h]) &+ UInt64(durations[e]) &+ shift
                    if d < best {
                        best = d
                        bestEntry = e
                        bestSeed = index
                    }
                }
                e += 1
            }
        }
        var answer = Answer()
        guard bestEntry >= 0 else { return answer }
        let hub = Int(hubs[bestEntry])
        answer.durationMilliseconds = UInt32(best)
        answer.lengthMeters = tableLength[hub] + direction.length[bestEntry] + seeds[bestSeed].lengthMeters
        answer.hub = Int32(hub)
        return answer
    }

    // MARK: The table

    // Both loops below skip border nodes that a lower border node dominates: when `b`'s label holds another
    // border node `x` with `d(b) + label(b)[x] <= d(x)`, every shortest path whose first labelled node is `x`
    // also climbs through `b` (up-paths all), so `b`'s label already holds its highest node. Border entries are
    // sorted by rank, and a hub outranks the node whose label holds it, so dominators are always scanned first;
    // as a label's hubs ascend, the border nodes among them are found by walking the border alongside.

    /// Writes the border labels of `c` into the table: per hub the shortest duration, and (unless `durationsOnly`)
    /// its length and border entry. For durations alone, a first pass touches every table slot the second will write
    /// (with `overlapsMisses`), so that their misses overlap instead of queueing behind the stores.
    func fillTable(_ c: Climb, _ direction: HubLabels.Direction, durationsOnly: Bool = false) {
        // Locals, so that the loops below do not go through the class's exclusivity checks per entry.
        let border = c.border
        var dominated = c.dominated
        c.dominated = []
        defer { c.dominated = dominated }
        let bits = filled.base
        var filledHubs = self.filledHubs
        self.filledHubs = []
        defer { self.filledHubs = filledHubs }
        let table = tableDuration.base
        for hub in filledHubs {
            bits[Int(hub) >> 6] = 0
            table[Int(hub)] = .max
        }
        filledHubs.removeAll(keepingCapacity: true)
        let hubs = direction.hub
        let durations = direction.duration
        let lengths = direction.length.base
        let first = direction.first.base
        let tableLength = self.tableLength.base
        let tableBorder = self.tableBorder.base
        var scanned = 0
        var skipped = 0
        defer {
            statistics.scannedEntries += scanned
            statistics.borderEntries += scanned + skipped
        }
        // (A full fill, for a route or one duration, is not touched ahead: three slots per hub read twice cost
        // more than their misses overlapping saved; 7.5 against 6.6 µs per route fill on the N=700 grid.)
        if overlapsMisses && durationsOnly {
            var sink: UInt32 = 0
            for b in border {
                for e in Int(first[Int(b.rank)])..<Int(first[Int(b.rank) + 1]) { sink &+= table[Int(hubs[e])] }
            }
            touched &+= sink
        }
        for index in border.indices {
            let b = border[index]
            guard var e = Self.labelStart(b, dominated[index], first, scanned: &scanned, skipped: &skipped) else {
                continue
            }
            let end = Int(first[Int(b.rank) + 1])
            var next = index + 1
            while e < end {
                let hub = hubs[e]
                let h = Int(hub)
                let d = durations[e] &+ b.durationMilliseconds
                Self.markDominated(hub, at: d, border: border, dominated: &dominated, next: &next)
                let bit: UInt64 = 1 << UInt64(h & 63)
                let fresh = bits[h >> 6] & bit == 0
                if fresh || d < table[h] {
                    if fresh {
                        bits[h >> 6] |= bit
                        filledHubs.append(hub)
                    }
                    table[h] = d
                    if !durationsOnly {
                        tableLength[h] = lengths[e] + b.lengthMeters
                        tableBorder[h] = Int32(index)
                    }
                }
                e += 1
            }
        }
    }

    /// Where border node `b`'s label starts, counting its entries as scanned; nil (counted as skipped) when a lower
    /// border node dominates it.
    @inline(__always)
    static func labelStart(
        _ b: BorderEntry, _ dominated: Bool, _ first: UnsafeMutablePointer<Int32>, scanned: inout Int,
        skipped: inout Int
    ) -> Int? {
        let start = Int(first[Int(b.rank)])
        let count = Int(first[Int(b.rank) + 1]) - start
        guard !dominated else {
            skipped += count
            return nil
        }
        scanned += count
        return start
    }

    /// Moves `next` along the (rank-sorted) border to the first node not below `hub`, and marks it dominated when it
    /// is `hub` and the node being scanned reaches it in at most `duration` (its own climb distance or less).
    @inline(__always)
    static func markDominated(
        _ hub: Int32, at duration: UInt32, border: [BorderEntry], dominated: inout [Bool], next: inout Int
    ) {
        while next < border.count && border[next].rank < hub { next += 1 }
        if next < border.count && border[next].rank == hub && duration <= border[next].durationMilliseconds {
            dominated[next] = true
        }
    }

    /// Scans the border's labels against the table into `answer`, remembering the best entry to rebuild a path
    /// from (`UpperLabelQuery+Batch` has the durations-only scan).
    func scanTable(_ c: Climb, _ direction: HubLabels.Direction, into answer: inout Answer) {
        // Locals, so that the loops below do not go through the class's exclusivity checks per entry.
        let border = c.border
        var dominated = c.dominated
        c.dominated = []
        defer { c.dominated = dominated }
        let hubs = direction.hub
        let durations = direction.duration
        let first = direction.first.base
        let bits = filled.base
        let table = tableDuration.base
        var best = UInt64(answer.durationMilliseconds)
        var bestEntry = -1
        var bestBorder = -1
        var scanned = 0
        var skipped = 0
        defer {
            statistics.scannedEntries += scanned
            statistics.borderEntries += scanned + skipped
        }
        for index in border.indices {
            let b = border[index]
            guard var e = Self.labelStart(b, dominated[index], first, scanned: &scanned, skipped: &skipped) else {
                continue
            }
            let end = Int(first[Int(b.rank) + 1])
            let shift = UInt64(b.durationMilliseconds)
            var next = index + 1
            while e < end {
                let hub = hubs[e]
                let h = Int(hub)
                if next < border.count {
                    Self.markDominated(
                        hub, at: durations[e] &+ b.durationMilliseconds, border: border, dominated: &dominated,
                        next: &next)
                }
                if bits[h >> 6] & (1 << UInt64(h & 63)) != 0 {
                    let d = UInt64(table[h]) &+ UInt64(durations[e]) &+ shift
                    if d < best {
                        best = d
                        bestEntry = e
                        bestBorder = index
                    }
                }
                e += 1
            }
        }
        guard bestEntry >= 0 else { return }
        let hub = Int(hubs[bestEntry])
        answer.durationMilliseconds = UInt32(best)
        answer.lengthMeters = tableLength[hub] + direction.length[bestEntry] + border[bestBorder].lengthMeters
        answer.meet = -1
        answer.hub = Int32(hub)
        answer.border = Int32(bestBorder)
        answer.entry = Int32(bestEntry)
    }
}
