/// Which dispatch shards one node owns, and until when it may act on them: the sans-I/O rules of shard leases
/// (issue 18, docs/dispatch-ownership.md). Its owner (`LeaseKeeper`) performs the actions against a
/// `ShardLeaseRepository` and reports the answers back.
///
/// Time is the node's **monotonic** clock in milliseconds, passed in: the database's expiry is never compared
/// with it. A lease won or renewed by a request sent at `t` may be acted on until `t + actingMilliseconds`
/// (two thirds of the lease by default), counted from when the request was **sent**, so the node stops acting
/// a third of the lease before the database lets anyone else take the shard, however long the answer took.
/// A node that was paused (SIGSTOP, a long GC-like stall, a VM freeze) finds its deadlines passed when it wakes:
/// it stops acting and must acquire again, which raises the fence so anything it sent before the pause is
/// refused by the database.
public struct ShardOwnership: Sendable {
    /// The lease's timing.
    public struct Configuration: Hashable, Sendable {
        /// How long a lease lasts in the database, from when it executes the acquisition or renewal.
        public var leaseMilliseconds: Int64
        /// How long after sending the request that won or renewed a lease the node may act on it.
        public var actingMilliseconds: Int64
        /// How long after sending the last request the node renews.
        public var renewAfterMilliseconds: Int64

        /// Timings for `leaseMilliseconds`: acting stops at two thirds, renewal at one third.
        public init(leaseMilliseconds: Int64 = 10_000) {
            self.init(
                leaseMilliseconds: leaseMilliseconds, actingMilliseconds: leaseMilliseconds * 2 / 3,
                renewAfterMilliseconds: leaseMilliseconds / 3)
        }

        /// Explicit timings: renewal comes before the acting deadline, which comes before the lease's end.
        public init(leaseMilliseconds: Int64, actingMilliseconds: Int64, renewAfterMilliseconds: Int64) {
            precondition(
                0 < renewAfterMilliseconds && renewAfterMilliseconds < actingMilliseconds
                    && actingMilliseconds < leaseMilliseconds,
                "renew before the acting deadline, and stop acting before the lease expires")
            self.leaseMilliseconds = leaseMilliseconds
            self.actingMilliseconds = actingMilliseconds
            self.renewAfterMilliseconds = renewAfterMilliseconds
        }
    }

    /// What the owner must do.
    public enum Action: Hashable, Sendable {
        /// Ask the database for the shard's lease (`acquireLease`), then report `acquired`.
        case acquire(DispatchShard)
        /// Ask the database to extend the lease (`renewLease`), then report `renewed`.
        case renew(ShardFence)
        /// Give the lease up (`releaseLease`); nothing to report.
        case release(ShardFence)
        /// This node owns the shard from now, under this fence: resume its trips from the database.
        case startActing(ShardFence)
        /// This node must not act on the shard any more (lost, expired locally, handed over or stopping).
        case stopActing(DispatchShard)
    }

    /// A lease this node may act on.
    struct Held: Hashable, Sendable {
        var fence: ShardFence
        /// When the request that won or last renewed it was sent.
        var sentAt: Int64
        /// When the renewal in flight was sent, if one is.
        var renewalSentAt: Int64?
    }

    /// This node.
    public let node: ClusterNodeID
    /// The timing.
    public let configuration: Configuration
    private(set) var held: [DispatchShard: Held] = [:]
    /// Acquisitions in flight, by when they were sent.
    private(set) var acquiring: [DispatchShard: Int64] = [:]
    /// True once `stop` ran: nothing more is acquired or renewed.
    public private(set) var isStopped = false

    /// The rules for `node`.
    public init(node: ClusterNodeID, configuration: Configuration = Configuration()) {
        self.node = node
        self.configuration = configuration
    }

    // MARK: Queries

    /// The fence to write `shard`'s trips under, when this node may act on it at `now`; nil otherwise.
    public func fence(of shard: DispatchShard, at now: Int64) -> ShardFence? {
        guard let h = held[shard], now < h.sentAt + configuration.actingMilliseconds else { return nil }
        return h.fence
    }

    /// When this node must stop acting on `shard` (monotonic milliseconds), if it holds it.
    public func actingDeadline(of shard: DispatchShard) -> Int64? {
        held[shard].map { $0.sentAt + configuration.actingMilliseconds }
    }

    /// The shards this node may act on at `now`, in order.
    public func ownedShards(at now: Int64) -> [DispatchShard] {
        held.keys.filter { fence(of: $0, at: now) != nil }.sorted()
    }

    /// How many of the 64 shards `node` should hold when `nodes` are alive: an even share, the first
    /// `64 % count` nodes in order holding one more, so the shares add up to 64.
    public static func evenShare(of nodes: [ClusterNodeID], for node: ClusterNodeID) -> Int {
        let all = Array(Set(nodes + [node])).sorted()
        let rank = all.firstIndex(of: node) ?? 0  // present: added above
        return DispatchShard.count / all.count + (rank < DispatchShard.count % all.count ? 1 : 0)
    }

    // MARK: Events

    /// Time passed: leases past their acting deadline are dropped (`stopActing`), due renewals are asked for.
    public mutating func tick(at now: Int64) -> [Action] {
        var actions: [Action] = []
        for shard in held.keys.sorted() {
            guard var h = held[shard] else { continue }
            if now >= h.sentAt + configuration.actingMilliseconds {
                held[shard] = nil
                actions.append(.stopActing(shard))
            } else if !isStopped, h.renewalSentAt == nil, now >= h.sentAt + configuration.renewAfterMilliseconds {
                h.renewalSentAt = now
                held[shard] = h
                actions.append(.renew(h.fence))
            }
        }
        return actions
    }

    /// What the database holds now (`liveNodes` from `announce`, every shard's lease from `leases`): besides
    /// `tick`'s work, a lease held here that the database shows taken by another fence is dropped; free shards
    /// are asked for up to this node's even share, preferring its own stripe (`shard % nodes == rank`) so
    /// nodes starting together do not race for the same ones; shards above the share are handed back.
    public mutating func observed(liveNodes: [ClusterNodeID], leases: [ShardLease], at now: Int64) -> [Action] {
        var actions = tick(at: now)
        guard !isStopped else { return actions }
        let byShard = Dictionary(leases.map { ($0.shard, $0) }, uniquingKeysWith: { a, _ in a })
        for (shard, h) in held.sorted(by: { $0.key < $1.key }) {
            if let lease = byShard[shard], lease.fence != h.fence || lease.owner != node {
                held[shard] = nil
                actions.append(.stopActing(shard))
            }
        }
        let nodes = Array(Set(liveNodes + [node])).sorted()
        let rank = nodes.firstIndex(of: node) ?? 0  // present: added above
        let share = Self.evenShare(of: nodes, for: node)
        func preferred(_ s: DispatchShard) -> Bool { s.index % nodes.count == rank }
        let have = held.count + acquiring.count
        if have < share {
            let free = leases.filter { lease in
                (!lease.isLive || lease.owner == node) && held[lease.shard] == nil && acquiring[lease.shard] == nil
            }.map(\.shard)
            let ordered = free.filter(preferred) + free.filter { !preferred($0) }
            for shard in ordered.prefix(share - have) {
                acquiring[shard] = now
                actions.append(.acquire(shard))
            }
        } else if held.count > share, acquiring.isEmpty {
            // Hand back the others' stripes first, highest shard first.
            let mine = held.keys.sorted(by: >)
            let order = mine.filter { !preferred($0) } + mine.filter(preferred)
            for shard in order.prefix(held.count - share) {
                // `!`: taken from `held`'s keys just above.
                let fence = held.removeValue(forKey: shard)!.fence
                actions.append(.stopActing(shard))
                actions.append(.release(fence))
            }
        }
        return actions
    }

    /// The answer to `acquire(shard)`: the lease won (nil: another node holds it). A lease whose acting deadline
    /// already passed by the time the answer came is not acted on (it is acquired again later).
    public mutating func acquired(_ shard: DispatchShard, lease: ShardLease?, at now: Int64) -> [Action] {
        guard let sentAt = acquiring.removeValue(forKey: shard), let lease, lease.owner == node else { return [] }
        if isStopped { return [.release(lease.fence)] }
        guard now < sentAt + configuration.actingMilliseconds else { return [] }
        let previous = held[shard]
        held[shard] = Held(fence: lease.fence, sentAt: sentAt, renewalSentAt: nil)
        return (previous == nil ? [] : [.stopActing(shard)]) + [.startActing(lease.fence)]
    }

    /// The answer to `renew(fence)`: the lease extended (nil: it was lost, so acting stops at once).
    public mutating func renewed(_ fence: ShardFence, lease: ShardLease?, at now: Int64) -> [Action] {
        guard var h = held[fence.shard], h.fence == fence, let sentAt = h.renewalSentAt else { return [] }
        h.renewalSentAt = nil
        guard let lease, lease.fence == fence, now < sentAt + configuration.actingMilliseconds else {
            held[fence.shard] = nil
            return [.stopActing(fence.shard)]
        }
        h.sentAt = sentAt
        held[fence.shard] = h
        return []
    }

    /// A request about `shard` failed without an answer (the database unreachable): an acquisition is
    /// forgotten; a lease held stays until its acting deadline, and the renewal is asked for again next tick.
    public mutating func requestFailed(_ shard: DispatchShard) {
        acquiring[shard] = nil
        held[shard]?.renewalSentAt = nil
    }

    /// Stopping (SIGTERM): acting stops on every shard and every lease is released, so other nodes take the
    /// shards over at once instead of after the leases expire.
    public mutating func stop(at now: Int64) -> [Action] {
        isStopped = true
        let shards = held.keys.sorted()
        let fences = shards.compactMap { held[$0]?.fence }
        held.removeAll()
        return shards.map { .stopActing($0) } + fences.map { .release($0) }
    }
}
