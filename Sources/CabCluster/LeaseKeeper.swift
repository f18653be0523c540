import CabCore
import Foundation
import Synchronization

/// Keeps this node's share of the 64 dispatch shards (issue 18): on a thread of its own it announces the node,
/// reads every lease, and performs what `ShardOwnership` decides (acquire, renew, hand back) against a
/// `ShardLeaseRepository`; `stop()` (what SIGTERM calls) releases every lease so other nodes take the shards
/// over at once. Dispatch asks `fence(of:)` before each write and writes under the fence it gets; the database
/// refuses the write if the fence went stale meanwhile.
public final class LeaseKeeper: ShardOwnershipStatus {
    /// The keeper's settings.
    public struct Configuration: Sendable {
        /// This node.
        public var node: ClusterNodeID
        /// The lease's timing (a node announces itself alive for one lease time too).
        public var ownership: ShardOwnership.Configuration
        /// How often the keeper reads the leases and acts, in milliseconds.
        public var tickMilliseconds: Int
        /// The node's monotonic clock in milliseconds (injected by tests).
        public var monotonicMilliseconds: @Sendable () -> Int64

        /// Settings for `node`.
        public init(
            node: ClusterNodeID, ownership: ShardOwnership.Configuration = .init(), tickMilliseconds: Int = 250,
            monotonicMilliseconds: @escaping @Sendable () -> Int64 = LeaseKeeper.continuousMilliseconds
        ) {
            precondition(
                tickMilliseconds > 0 && Int64(tickMilliseconds) < ownership.renewAfterMilliseconds,
                "the keeper looks more often than it renews")
            self.node = node
            self.ownership = ownership
            self.tickMilliseconds = tickMilliseconds
            self.monotonicMilliseconds = monotonicMilliseconds
        }
    }

    /// What the keeper tells its owner, on the keeper's thread.
    public enum Event: Sendable, Hashable {
        /// This node owns the shard under this fence from now: resume its trips.
        case startActing(ShardFence)
        /// This node must stop acting on the shard now.
        case stopActing(DispatchShard)
        /// The database could not be asked (the message says why); leases run out if it stays so.
        case failed(String)
    }

    /// The machine's clock: `ContinuousClock`, which keeps counting while the process is stopped or the machine
    /// sleeps, so a pause shows as time passed.
    public static let continuousMilliseconds: @Sendable () -> Int64 = {
        let elapsed = ContinuousClock.now - LeaseKeeper.origin
        return elapsed.components.seconds * 1_000 + elapsed.components.attoseconds / 1_000_000_000_000_000
    }
    private static let origin = ContinuousClock.now

    /// The settings.
    public let configuration: Configuration
    private let repository: any ShardLeaseRepository
    private let onEvent: @Sendable (Event) -> Void
    private let machine: Mutex<ShardOwnership>
    private let thread: Mutex<ThreadState> = Mutex(ThreadState())

    struct ThreadState {
        var running = false
        var stopping = false
    }

    /// A keeper for `configuration.node` over `repository`; `start()` sets it going.
    public init(
        repository: any ShardLeaseRepository, configuration: Configuration,
        onEvent: @escaping @Sendable (Event) -> Void = { _ in }
    ) {
        self.repository = repository
        self.configuration = configuration
        self.onEvent = onEvent
        machine = Mutex(ShardOwnership(node: configuration.node, configuration: configuration.ownership))
    }

    /// The fence to write `shard`'s trips under, while this node may act on it; nil otherwise.
    public func fence(of shard: DispatchShard) -> ShardFence? {
        let now = configuration.monotonicMilliseconds()
        return machine.withLock { $0.fence(of: shard, at: now) }
    }

    /// The fence to write `booking` under, while this node may act on its shard; nil otherwise.
    public func fence(of booking: BookingID) -> ShardFence? { fence(of: DispatchShard(of: booking)) }

    /// This node.
    public var node: ClusterNodeID { configuration.node }

    /// The shards this node may act on now.
    public var ownedShards: [DispatchShard] {
        let now = configuration.monotonicMilliseconds()
        return machine.withLock { $0.ownedShards(at: now) }
    }

    /// Starts the keeper's thread (once).
    public func start() {
        let starting = thread.withLock { t -> Bool in
            guard !t.running, !t.stopping else { return false }
            t.running = true
            return true
        }
        guard starting else { return }
        let t = Thread { [self] in run() }
        t.name = "cab-lease-keeper"
        t.start()
    }

    /// Stops the thread, stops acting on every shard and releases every lease, and leaves the live nodes, so the
    /// other nodes take the shards over within their next tick. Errors are reported as `failed` (the leases
    /// then run out by themselves).
    public func stop() {
        stopThread()
        let now = configuration.monotonicMilliseconds()
        perform(machine.withLock { $0.stop(at: now) })
        do {
            try repository.withdraw(configuration.node)
        } catch {
            onEvent(.failed("leaving the live nodes: \(error)"))
        }
    }

    /// Stops the thread and nothing else: leases are left to expire, as after a SIGKILL (for tests).
    func stopWithoutReleasing() { stopThread() }

    private func stopThread() {
        thread.withLock { $0.stopping = true }
        while thread.withLock({ $0.running }) { usleep(2_000) }
    }

    private func run() {
        defer { thread.withLock { $0.running = false } }
        while !thread.withLock({ $0.stopping }) {
            round()
            var waited = 0
            while waited < configuration.tickMilliseconds, !thread.withLock({ $0.stopping }) {
                let step = min(20, configuration.tickMilliseconds - waited)
                usleep(UInt32(step) * 1_000)
                waited += step
            }
        }
    }

    /// One round: announce, read the leases, act.
    private func round() {
        let observed: (nodes: [ClusterNodeID], leases: [ShardLease])?
        do {
            let nodes = try repository.announce(
                configuration.node, aliveMilliseconds: configuration.ownership.leaseMilliseconds)
            observed = (nodes, try repository.leases())
        } catch {
            onEvent(.failed("reading the shard leases: \(error)"))
            observed = nil
        }
        let now = configuration.monotonicMilliseconds()
        perform(
            machine.withLock { m in
                if let observed { return m.observed(liveNodes: observed.nodes, leases: observed.leases, at: now) }
                return m.tick(at: now)
            })
    }

    /// Performs `actions` and whatever the machine answers to their results. Once a request fails, the round's
    /// other acquisitions and renewals are not sent (they are reported failed, so the next round asks again):
    /// an unreachable database costs one attempt and one `failed` event per round, not one per shard.
    private func perform(_ actions: [ShardOwnership.Action]) {
        var unreachable = false
        // Renewals first and in one statement: they are what keeps the shards, and their deadlines run from
        // when the machine asked.
        let renewals = actions.compactMap { if case .renew(let fence) = $0 { fence } else { nil } }
        if !renewals.isEmpty {
            do {
                let renewed = try repository.renewLeases(
                    renewals, for: configuration.node, durationMilliseconds: configuration.ownership.leaseMilliseconds)
                let byShard = Dictionary(renewed.map { ($0.shard, $0) }, uniquingKeysWith: { a, _ in a })
                let now = configuration.monotonicMilliseconds()
                let next = machine.withLock { m in
                    renewals.flatMap { m.renewed($0, lease: byShard[$0.shard], at: now) }
                }
                perform(next)
            } catch {
                onEvent(.failed("renewing \(renewals.count) shard leases: \(error)"))
                unreachable = true
                machine.withLock { m in for fence in renewals { m.requestFailed(fence.shard) } }
            }
        }
        var queue = actions.filter { if case .renew = $0 { false } else { true } }[...]
        while let action = queue.popFirst() {
            let node = configuration.node
            let lease = configuration.ownership.leaseMilliseconds
            var next: [ShardOwnership.Action] = []
            switch action {
            case .acquire(let shard) where unreachable:
                machine.withLock { $0.requestFailed(shard) }
            case .acquire(let shard):
                do {
                    let won = try repository.acquireLease(of: shard, for: node, durationMilliseconds: lease)
                    let now = configuration.monotonicMilliseconds()
                    next = machine.withLock { $0.acquired(shard, lease: won, at: now) }
                } catch {
                    onEvent(.failed("acquiring \(shard): \(error)"))
                    unreachable = true
                    machine.withLock { $0.requestFailed(shard) }
                }
            case .renew(let fence):
                preconditionFailure("renewals are sent together above, not one by one (\(fence))")
            case .release(let fence):
                do {
                    try repository.releaseLease(fence, for: node)
                } catch {
                    onEvent(.failed("releasing \(fence): \(error)"))
                }
            case .startActing(let fence):
                onEvent(.startActing(fence))
            case .stopActing(let shard):
                onEvent(.stopActing(shard))
            }
            queue.append(contentsOf: next)
        }
    }
}
