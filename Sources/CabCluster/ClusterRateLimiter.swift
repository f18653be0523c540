import CabRedis

/// One rate limit shared by every node (a token bucket per name, kept in Redis and judged there on the server's
/// clock, `cab_take`): a driver posting to three nodes is held to one driver's limit.
///
/// With Redis away the answer is `.unavailable` and the caller applies its own node-local limit (degraded, not
/// down): the cluster-wide limit is best effort, the node's own limit always holds.
public final class ClusterRateLimiter: Sendable {
    /// What the shared bucket said.
    public enum Decision: Hashable, Sendable {
        /// Taken.
        case allowed
        /// Refused: enough tokens in this many milliseconds.
        case refused(retryAfterMilliseconds: Int)
        /// Redis did not answer; use the node's own limit.
        case unavailable
    }

    private let redis: RedisClient
    private let keys: ClusterKeys
    /// Tokens a bucket holds.
    public let capacity: Double
    /// Tokens a bucket gains per second.
    public let refillPerSecond: Double

    /// Buckets of `capacity` tokens refilled at `refillPerSecond`.
    public init(redis: RedisClient, keys: ClusterKeys, capacity: Double, refillPerSecond: Double) {
        precondition(capacity > 0 && refillPerSecond > 0, "a bucket holds and gains tokens")
        self.redis = redis
        self.keys = keys
        self.capacity = capacity
        self.refillPerSecond = refillPerSecond
    }

    /// Takes `cost` tokens from bucket `name` (e.g. a driver id).
    public func take(_ name: String, cost: Double = 1) -> Decision {
        do {
            let reply = try ClusterFunctions.call(
                redis, "cab_take", keys: [keys.bucket(name)],
                arguments: [String(capacity), String(refillPerSecond), String(cost)])
            let parts = reply.elements.compactMap(\.integer)
            guard parts.count == 2 else { return .unavailable }
            return parts[0] == 1 ? .allowed : .refused(retryAfterMilliseconds: Int(parts[1]))
        } catch {
            return .unavailable
        }
    }
}
