import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// What estimating a node's priority reads of the shrinking graph: views that stay valid while no arc is added or
/// removed and no depth changes (`ContractionBuilder.withSnapshot`).
struct ContractionSnapshot {
    let outs: ContractionAdjacency.View
    let ins: ContractionAdjacency.View
    /// Original edges per arc.
    let arcHops: UnsafePointer<UInt32>
    /// Per node: one more than the deepest contracted neighbour.
    let depth: UnsafePointer<Int32>
}

/// A simulated contraction of one node: its queue key, and (when asked) the shortcuts it would add. Holds its own
/// scratch (a witness search sized to the graph), so each thread that estimates needs one.
struct PriorityEstimator {
    private var incoming: [ContractionBuilder.DynamicArc] = []
    private var outgoing: [ContractionBuilder.DynamicArc] = []
    private var witness: WitnessSearch
    /// The shortcuts of the last `priority(of:collect: true, ...)`.
    private(set) var shortcuts: [ContractionBuilder.Shortcut] = []
    /// Per shortcut, the index of the in-arc it starts with (kept only by `witnesses(of:...)`, for merging).
    private(set) var shortcutInArcs: [Int32] = []
    private var mergeScratch: [ContractionBuilder.Shortcut] = []

    init(nodeCount: Int) {
        witness = WitnessSearch(nodeCount: nodeCount)
    }

    /// What the witness searches of some in-arcs found: shortcuts needed and the original edges they stand for.
    struct Tally {
        var added = 0
        var hopsAdded: UInt32 = 0
    }

    /// The queue key of `v`, `2 · shortcuts added / arcs removed + 4 · original edges added / original edges removed
    /// + depth` (scaled to an integer); with `collect`, the shortcuts land in `shortcuts`, in in-arc order. With
    /// `helper`, the witness searches of `v`'s in-arcs are shared with its thread (same shortcuts, same order).
    mutating func priority(
        of v: Int32, collect: Bool, settleLimit: Int, in graph: ContractionSnapshot, helper: PriorityHelper? = nil
    ) -> UInt32 {
        shortcuts.removeAll(keepingCapacity: true)
        incoming.removeAll(keepingCapacity: true)
        incoming.append(contentsOf: graph.ins.arcs(v))
        outgoing.removeAll(keepingCapacity: true)
        outgoing.append(contentsOf: graph.outs.arcs(v))
        var tally = Tally()
        if !incoming.isEmpty && !outgoing.isEmpty {
            if let helper, incoming.count > 1 {
                tally = helper.witnesses(
                    of: v, incoming: incoming, outgoing: outgoing, collect: collect, settleLimit: settleLimit,
                    with: &self, in: graph)
            } else {
                for index in incoming.indices {
                    witnesses(
                        of: v, inArc: index, incoming: incoming, outgoing: outgoing, collect: collect,
                        settleLimit: settleLimit, tagged: false, in: graph, into: &tally)
                }
            }
        }
        let arcHops = graph.arcHops
        let removed = incoming.count + outgoing.count
        var hopsRemoved: UInt32 = 0
        for arc in incoming { hopsRemoved += arcHops[Int(arc.arc)] }
        for arc in outgoing { hopsRemoved += arcHops[Int(arc.arc)] }
        var value = Float(graph.depth[Int(v)])
        if removed > 0 { value += 2 * Float(tally.added) / Float(removed) }
        if hopsRemoved > 0 { value += 4 * Float(tally.hopsAdded) / Float(hopsRemoved) }
        return UInt32(min(value * 1024, Float(UInt32.max / 2)))
    }

    /// The witness search from the tail of `incoming[inArc]` avoiding `v`: every out-arc it finds no path as short
    /// as through `v` for needs a shortcut, counted in `tally` (and appended with `collect`; with `tagged`, its
    /// in-arc goes to `shortcutInArcs`).
    mutating func witnesses(
        of v: Int32, inArc index: Int, incoming: [ContractionBuilder.DynamicArc],
        outgoing: [ContractionBuilder.DynamicArc], collect: Bool, settleLimit: Int, tagged: Bool,
        in graph: ContractionSnapshot, into tally: inout Tally
    ) {
        let inArc = incoming[index]
        let u = inArc.other
        var maxOut: UInt32 = 0
        for out in outgoing { maxOut = max(maxOut, out.weight) }
        witness.run(
            from: u, avoiding: v, limit: inArc.weight + maxOut, targets: outgoing, outs: graph.outs,
            settleLimit: settleLimit)
        for out in outgoing where out.other != u {
            let through = inArc.weight + out.weight
            if witness.distance(to: out.other) <= through { continue }
            tally.added += 1
            let hops = graph.arcHops[Int(inArc.arc)] + graph.arcHops[Int(out.arc)]
            tally.hopsAdded += hops
            if collect {
                shortcuts.append(
                    ContractionBuilder.Shortcut(
                        from: u, to: out.other, weight: through, first: inArc.arc, second: out.arc, hops: hops))
                if tagged { shortcutInArcs.append(Int32(index)) }
            }
        }
    }

    /// Starts a run of tagged `witnesses` calls (the helper's side of shared searches).
    mutating func clearShortcuts() {
        shortcuts.removeAll(keepingCapacity: true)
        shortcutInArcs.removeAll(keepingCapacity: true)
    }

    /// Merges another estimator's tagged shortcuts into this one's (both in ascending in-arc order, each in-arc's
    /// shortcuts found by one of them), so that the shortcuts are in the order one thread finds them.
    mutating func merge(_ others: [ContractionBuilder.Shortcut], inArcs otherInArcs: [Int32]) {
        guard !others.isEmpty else { return }
        swap(&shortcuts, &mergeScratch)
        shortcuts.removeAll(keepingCapacity: true)
        var i = 0
        var j = 0
        while i < mergeScratch.count || j < others.count {
            if j == others.count || (i < mergeScratch.count && shortcutInArcs[i] < otherInArcs[j]) {
                shortcuts.append(mergeScratch[i])
                i += 1
            } else {
                shortcuts.append(others[j])
                j += 1
            }
        }
    }
}

/// The second thread of a contraction: estimates priorities together with the builder, on a graph the builder does
/// not change until the estimates are back.
///
/// Half of a metro contraction is re-estimating the neighbours of each contracted node (about 1.6 µs each at
/// N=700, several per node). Those estimates read the graph and write nothing but their own scratch, so the
/// builder posts each node's neighbours as a job, and both threads take its nodes one at a time from a shared
/// counter (the builder's caches are warm with the node just contracted, the helper's are not, so a fixed half
/// would leave one of them waiting). While sharing, both spin rather than sleep between jobs, since a job lasts
/// microseconds and the builder posts one every few; while the builder runs alone, the helper sleeps. The keys are the ones one thread computes, and the builder applies them in
/// the same order, so the hierarchy is the same. Whether sharing pays is measured as the contraction goes
/// (`SharingSchedule`).
final class PriorityHelper: @unchecked Sendable {
    // `@unchecked Sendable`: `job` is written by the builder before it publishes a job (`posted`, releasing) and read
    // by the helper after it loads `posted` (acquiring); the builder rewrites it only after the helper has published
    // `finished` for that job (releasing, loaded acquiring), which the helper does after its last write of the job's
    // keys. `estimator` is the helper's alone. A key is written by whichever thread claimed its index (`claimed`).
    private struct Job {
        var graph: ContractionSnapshot
        var count: Int
        var chunk: Int
        var settleLimit: Int
        var work: Work
    }

    private enum Work {
        /// Estimate `nodes[i]` into `keys[i]`.
        case estimates(nodes: UnsafePointer<Int32>, keys: UnsafeMutablePointer<UInt32>)
        /// The witness searches of `v`'s in-arc `i` (tallied and collected in the helper's estimator).
        case witnesses(
            v: Int32, incoming: [ContractionBuilder.DynamicArc], outgoing: [ContractionBuilder.DynamicArc],
            collect: Bool)
    }

    private let posted = Atomic<Int>(0)
    private let finished = Atomic<Int>(0)
    /// The next index of the current job that no thread has taken.
    private let claimed = Atomic<Int>(0)
    private var job: Job?
    private var estimator: PriorityEstimator
    /// What the helper's share of the last witness job found.
    private var tally = PriorityEstimator.Tally()
    private var sequence = 0
    private static let stopped = -1
    /// Spins before a waiting thread starts yielding the processor: long enough to span the builder's own work
    /// between two jobs (a few microseconds), short enough not to hold a core long when nothing comes.
    private static let spinsBeforeYielding = 1 << 14

    /// Set while the builder runs alone: the helper then sleeps on `condition` instead of spinning (a spinning
    /// thread slows the builder's when the two processors share a core).
    private let parkRequested = Atomic<Bool>(false)
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)

    init(nodeCount: Int) {
        estimator = PriorityEstimator(nodeCount: nodeCount)
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(condition, nil)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
    }

    /// Lets the helper sleep until `unpark()` (builder side, between jobs).
    func park() { parkRequested.store(true, ordering: .relaxed) }

    /// Wakes the helper for the jobs to come (builder side, before posting one).
    func unpark() {
        pthread_mutex_lock(mutex)
        parkRequested.store(false, ordering: .relaxed)
        pthread_cond_signal(condition)
        pthread_mutex_unlock(mutex)
    }

    /// Helper side: sleeps until the builder calls `unpark()` (checked under the mutex, so no wake-up is lost).
    private func waitWhileParked() {
        pthread_mutex_lock(mutex)
        while parkRequested.load(ordering: .relaxed) { pthread_cond_wait(condition, mutex) }
        pthread_mutex_unlock(mutex)
    }

    /// Whether this machine has a second processor online: with one, the two threads' spinning would take turns on
    /// it and the contraction would only get slower.
    static var hasSecondProcessor: Bool { sysconf(Int32(_SC_NPROCESSORS_ONLN)) > 1 }

    /// The helper thread's loop: works on each posted job until `stop()`.
    func run() {
        var seen = 0
        while true {
            var spins = 0
            var now = posted.load(ordering: .acquiring)
            while now == seen {
                if parkRequested.load(ordering: .relaxed) {
                    waitWhileParked()
                    spins = 0
                }
                spins += 1
                if spins > Self.spinsBeforeYielding { sched_yield() }
                now = posted.load(ordering: .acquiring)
            }
            if now == Self.stopped { return }
            seen = now
            guard let job else { preconditionFailure("a job posted without its data") }
            tally = PriorityEstimator.Tally()
            estimator.clearShortcuts()
            work(on: job, with: &estimator, tagged: true, into: &tally)
            finished.store(seen, ordering: .releasing)
        }
    }

    /// Takes `job.chunk` indices at a time from `claimed` and does their work, until none are left.
    private func work(
        on job: Job, with estimator: inout PriorityEstimator, tagged: Bool, into tally: inout PriorityEstimator.Tally
    ) {
        while true {
            let start = claimed.wrappingAdd(job.chunk, ordering: .relaxed).oldValue
            if start >= job.count { return }
            for i in start..<min(start + job.chunk, job.count) {
                switch job.work {
                case .estimates(let nodes, let keys):
                    keys[i] = estimator.priority(
                        of: nodes[i], collect: false, settleLimit: job.settleLimit, in: job.graph)
                case .witnesses(let v, let incoming, let outgoing, let collect):
                    estimator.witnesses(
                        of: v, inArc: i, incoming: incoming, outgoing: outgoing, collect: collect,
                        settleLimit: job.settleLimit, tagged: tagged, in: job.graph, into: &tally)
                }
            }
        }
    }

    /// Posts `job`, works on it here too, and returns once the helper has finished its share (builder side).
    private func share(
        _ job: Job, with estimator: inout PriorityEstimator, tagged: Bool, into tally: inout PriorityEstimator.Tally
    ) {
        self.job = job
        claimed.store(0, ordering: .relaxed)
        sequence += 1
        posted.store(sequence, ordering: .releasing)
        work(on: job, with: &estimator, tagged: tagged, into: &tally)
        var spins = 0
        while finished.load(ordering: .acquiring) != sequence {
            spins += 1
            if spins > Self.spinsBeforeYielding { sched_yield() }
        }
    }

    /// The estimates of `count` nodes into `keys`, shared with the helper thread; returns once all are written
    /// (builder side). Nodes are taken `chunk` at a time.
    func estimate(
        _ nodes: UnsafePointer<Int32>, count: Int, into keys: UnsafeMutablePointer<UInt32>, chunk: Int,
        settleLimit: Int, with estimator: inout PriorityEstimator, in graph: ContractionSnapshot
    ) {
        var unused = PriorityEstimator.Tally()
        share(
            Job(
                graph: graph, count: count, chunk: chunk, settleLimit: settleLimit,
                work: .estimates(nodes: nodes, keys: keys)), with: &estimator, tagged: false, into: &unused)
    }

    /// The witness searches of every in-arc of `v`, shared with the helper thread: returns their tally, and (with
    /// `collect`) leaves the shortcuts in `estimator`, in in-arc order (builder side).
    func witnesses(
        of v: Int32, incoming: [ContractionBuilder.DynamicArc], outgoing: [ContractionBuilder.DynamicArc],
        collect: Bool, settleLimit: Int, with estimator: inout PriorityEstimator, in graph: ContractionSnapshot
    ) -> PriorityEstimator.Tally {
        var mine = PriorityEstimator.Tally()
        estimator.clearShortcuts()
        share(
            Job(
                graph: graph, count: incoming.count, chunk: 1, settleLimit: settleLimit,
                work: .witnesses(v: v, incoming: incoming, outgoing: outgoing, collect: collect)),
            with: &estimator, tagged: true, into: &mine)
        estimator.merge(self.estimator.shortcuts, inArcs: self.estimator.shortcutInArcs)
        return PriorityEstimator.Tally(added: mine.added + tally.added, hopsAdded: mine.hopsAdded + tally.hopsAdded)
    }

    /// Ends the helper's loop (builder side, after its last `estimate`).
    func stop() {
        unpark()
        posted.store(Self.stopped, ordering: .releasing)
    }
}

/// When the contraction shares its work with the second thread: by measuring. When the host runs the two processors
/// apart, sharing takes a sixth off the N=700 grid's contraction; when they share a core, or another process wants
/// one, the helper is often off its processor when the builder needs its share, and two threads waiting on each
/// other at every node are slower than one. So the contraction runs in epochs of `epochContractions` nodes: first
/// one epoch sharing and one alone, then `epochsBetweenTrials` epochs the faster way, then another trial, and so
/// on. Sans-I/O: the builder reports each epoch's seconds and asks what to do next. The hierarchy is the same
/// whichever way each epoch runs.
struct SharingSchedule {
    /// Nodes contracted per epoch.
    static let epochContractions = 2_048
    /// Epochs run the chosen way between two trials.
    static let epochsBetweenTrials = 8

    private enum Phase {
        case trialSharing
        case trialAlone(sharingSeconds: Double)
        case chosen(sharing: Bool, epochsLeft: Int)
    }

    private var phase = Phase.trialSharing
    /// Epochs run sharing and alone (for the benchmark's figures).
    private(set) var epochsSharing = 0
    private(set) var epochsAlone = 0

    /// Whether the current epoch shares its work.
    var shares: Bool {
        switch phase {
        case .trialSharing: true
        case .trialAlone: false
        case .chosen(let sharing, _): sharing
        }
    }

    /// Records that the current epoch took `seconds` and moves to the next.
    mutating func finished(epochSeconds seconds: Double) {
        if shares { epochsSharing += 1 } else { epochsAlone += 1 }
        switch phase {
        case .trialSharing:
            phase = .trialAlone(sharingSeconds: seconds)
        case .trialAlone(let sharingSeconds):
            phase = .chosen(sharing: sharingSeconds < seconds, epochsLeft: Self.epochsBetweenTrials)
        case .chosen(let sharing, let epochsLeft):
            phase = epochsLeft > 1 ? .chosen(sharing: sharing, epochsLeft: epochsLeft - 1) : .trialSharing
        }
    }
}
