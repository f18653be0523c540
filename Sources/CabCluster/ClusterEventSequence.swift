import CabRedis
import Synchronization

/// Dense ids shared by every node (`cab_next_ids`): a node reserves a block, so ids are unique and increasing
/// across the cluster. Fleet events take theirs from the same counter inside `cab_publish` (numbered and appended
/// to the positions stream in one step, `FleetPositionPublisher`), so that the stream's order is the ids' order.
///
/// Redis without persistence loses the counter on a restart; every reservation passes the highest id this node
/// has handed out or seen (`observe`), and a lost counter starts above it and above the server's clock in
/// microseconds, so ids keep increasing.
public final class ClusterEventSequence: Sendable {
    private let redis: RedisClient
    private let keys: ClusterKeys
    private let highest = Mutex<UInt64>(0)

    /// The sequence of `keys`' city.
    public init(redis: RedisClient, keys: ClusterKeys) {
        self.redis = redis
        self.keys = keys
    }

    /// Notes an id seen from another node, so that ids reserved later are above it.
    public func observe(_ id: UInt64) { highest.withLock { $0 = max($0, id) } }

    /// The highest id reserved or observed.
    public var highestKnown: UInt64 { highest.withLock { $0 } }

    /// Reserves `count` ids (≥ 1): the block's first and last. A connection found broken is tried once more on
    /// a fresh one: if the first attempt did reach the server, a block of ids goes unused, which readers see as
    /// ids without events (never as a repeat).
    public func reserve(_ count: Int) throws(RedisError) -> ClosedRange<UInt64> {
        precondition(count >= 1, "reserve at least one id")
        let reply: RedisReply
        do {
            reply = try nextIDs(count)
        } catch let error where error.isConnectionLost {
            reply = try nextIDs(count)
        }
        guard let last = reply.integer, last >= Int64(count) else {
            throw RedisError(code: .unexpectedReply, message: "cab_next_ids answered \(reply)")
        }
        let block = UInt64(last) - UInt64(count) + 1...UInt64(last)
        observe(block.upperBound)
        return block
    }

    private func nextIDs(_ count: Int) throws(RedisError) -> RedisReply {
        try ClusterFunctions.call(
            redis, "cab_next_ids", keys: [keys.eventSequence], arguments: [count, Int64(clamping: highestKnown)])
    }
}
