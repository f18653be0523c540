import CabCore
import CabRedis
import Foundation
import Synchronization

/// Publishes the positions this node accepted to the city's Redis stream in micro-batches, and keeps each driver's
/// newest position in the `latest` hash (newest wins, judged on the server: `cab_put_latest`).
///
/// `publish` never blocks and never waits for Redis: positions wait in a map of at most one (the newest) per
/// driver, bounded by `Configuration.maxPendingDrivers`, which a thread of its own flushes every
/// `flushMilliseconds` in one pipeline of `cab_publish` calls (each numbers a part of at most `maxBatch` positions
/// from the city's event counter, appends it to the stream with an approximate `MAXLEN` and updates the hash, in
/// one server-side step: the stream's order is the fleet event ids' order). While Redis is away the map keeps each
/// driver's newest position, and the first flush after it is back sends them: other nodes catch up on every
/// driver at once, with nothing older than what they had.
public final class FleetPositionPublisher: Sendable {
    /// Settings.
    public struct Configuration: Sendable, Hashable {
        /// How often the pending positions are sent.
        public var flushMilliseconds: Int
        /// At most this many positions per stream entry (a larger backlog goes out in several).
        public var maxBatch: Int
        /// At most this many drivers wait; a new driver beyond it is dropped (counted) until the next flush.
        public var maxPendingDrivers: Int
        /// The stream is trimmed to about this many entries (`XADD MAXLEN ~`).
        public var streamMaxEntries: Int

        /// Creates settings.
        public init(
            flushMilliseconds: Int = 20, maxBatch: Int = 512, maxPendingDrivers: Int = 200_000,
            streamMaxEntries: Int = 20_000
        ) {
            precondition(
                flushMilliseconds > 0 && maxBatch > 0 && maxPendingDrivers > 0 && streamMaxEntries > 0,
                "positive settings")
            self.flushMilliseconds = flushMilliseconds
            self.maxBatch = maxBatch
            self.maxPendingDrivers = maxPendingDrivers
            self.streamMaxEntries = streamMaxEntries
        }
    }

    /// Counts since start.
    public struct Counts: Sendable, Hashable {
        /// Positions sent to Redis.
        public var published = 0
        /// Positions replaced by a newer one of the same driver before they were sent.
        public var coalesced = 0
        /// Positions dropped because `maxPendingDrivers` were waiting.
        public var dropped = 0
        /// Flushes that failed (Redis away); their positions stayed pending.
        public var failedFlushes = 0
    }

    private struct State {
        var pending: [DriverID: ReplicatedPosition] = [:]
        var counts = Counts()
        var running = false
    }

    /// The settings.
    public let configuration: Configuration
    private let redis: RedisClient
    private let keys: ClusterKeys
    private let node: String
    private let state = Mutex(State())
    private let stopping = Atomic<Bool>(false)
    private let finished = Atomic<Bool>(true)
    private let highestEventID = Atomic<UInt64>(0)

    /// A publisher for `node` (its id in the stream's entries, so its own replica skips them).
    public init(redis: RedisClient, keys: ClusterKeys, node: String, configuration: Configuration = Configuration()) {
        self.redis = redis
        self.keys = keys
        self.node = node
        self.configuration = configuration
    }

    /// Notes the highest fleet event id this node has handed out or seen: a counter Redis lost with a restart
    /// starts above it (`cab_publish`'s floor), so that ids keep increasing.
    public func observe(eventID: UInt64) { highestEventID.max(eventID, ordering: .relaxed) }

    /// Queues `position` for the next flush (newest per driver wins). Never blocks.
    public func publish(_ position: ReplicatedPosition) {
        state.withLock { s in
            if let waiting = s.pending[position.driver] {
                if waiting.position.timeMilliseconds <= position.position.timeMilliseconds {
                    s.pending[position.driver] = position
                }
                s.counts.coalesced += 1
            } else if s.pending.count < configuration.maxPendingDrivers {
                s.pending[position.driver] = position
            } else {
                s.counts.dropped += 1
            }
        }
    }

    /// Counts since start.
    public var counts: Counts { state.withLock { $0.counts } }

    /// Positions waiting for the next flush.
    public var pendingCount: Int { state.withLock { $0.pending.count } }

    /// Starts the flushing thread.
    public func start() {
        let wasRunning = state.withLock { s in
            defer { s.running = true }
            return s.running
        }
        guard !wasRunning else { return }
        stopping.store(false, ordering: .releasing)
        finished.store(false, ordering: .releasing)
        let thread = Thread { [self] in
            defer { finished.store(true, ordering: .releasing) }
            while !stopping.load(ordering: .acquiring) {
                usleep(UInt32(configuration.flushMilliseconds * 1000))
                _ = flush()
            }
            _ = flush()  // what was queued before `stop()`
        }
        thread.name = "cluster-positions"
        thread.start()
    }

    /// Stops the thread after a last flush, and waits for it.
    public func stop() {
        guard state.withLock({ $0.running }) else { return }
        stopping.store(true, ordering: .releasing)
        while !finished.load(ordering: .acquiring) { usleep(2_000) }
        state.withLock { $0.running = false }
    }

    private static func isMissingFunction(_ reply: RedisReply) -> Bool {
        if case .error(let e) = reply { return e.contains("Function not found") }
        return false
    }

    /// Sends what is pending now; false when Redis refused or was away (the positions stay pending, unless a
    /// newer one of the same driver came meanwhile).
    @discardableResult
    public func flush() -> Bool {
        let batch: [ReplicatedPosition] = state.withLock { s in
            defer { s.pending.removeAll(keepingCapacity: true) }
            return Array(s.pending.values)
        }
        guard !batch.isEmpty else { return true }
        do {
            // One `cab_publish` per part: numbered from the cluster's counter and appended in the same step.
            let floor = Int64(clamping: highestEventID.load(ordering: .relaxed))
            var commands: [[any RedisArgument]] = []
            var start = 0
            while start < batch.count {
                let part = Array(batch[start..<min(batch.count, start + configuration.maxBatch)])
                var command: [any RedisArgument] = [
                    "FCALL", "cab_publish", 3, keys.eventSequence, keys.positions, keys.latest, node,
                    configuration.streamMaxEntries, floor, ReplicatedPosition.batch(part),
                ]
                for p in part {
                    command += [p.driver.rawValue, p.position.timeMilliseconds, p.line] as [any RedisArgument]
                }
                commands.append(command)
                start += configuration.maxBatch
            }
            var replies = try redis.pipeline(commands)
            if replies.contains(where: Self.isMissingFunction) {
                try redis.loadFunctions(ClusterFunctions.source)  // a new or restarted server
                replies = try redis.pipeline(commands)
            }
            if let failure = replies.first(where: { if case .error = $0 { true } else { false } }),
                case .error(let e) = failure
            {
                throw RedisError(code: .server, message: e)
            }
            state.withLock { $0.counts.published += batch.count }
            return true
        } catch {
            state.withLock { s in
                s.counts.failedFlushes += 1
                for p in batch {
                    // Back in, unless a newer one came meanwhile.
                    if let newer = s.pending[p.driver], newer.position.timeMilliseconds >= p.position.timeMilliseconds {
                        continue
                    }
                    if s.pending[p.driver] == nil && s.pending.count >= configuration.maxPendingDrivers {
                        s.counts.dropped += 1
                        continue
                    }
                    s.pending[p.driver] = p
                }
            }
            return false
        }
    }
}
