import CabRedis
import Foundation
import Synchronization

/// Tells every node that a token was revoked (a stream of token hashes), so that each drops it from its token
/// cache at once instead of waiting for the cache to expire.
public final class TokenRevocations: Sendable {
    private let redis: RedisClient
    private let endpoint: RedisEndpoint
    private let keys: ClusterKeys
    private let reader = Mutex<RedisStreamReader?>(nil)

    /// Revocations of `keys`' city.
    public init(redis: RedisClient, keys: ClusterKeys) {
        self.redis = redis
        endpoint = redis.endpoint
        self.keys = keys
    }

    /// Announces that the token with hash `hash` (hex) is revoked. The stream keeps the newest 10,000.
    public func announce(_ hash: String) throws(RedisError) {
        let reply = try redis.command("XADD", keys.revocations, "MAXLEN", "~", 10_000, "*", "h", hash)
        if case .error(let e) = reply { throw RedisError(code: .server, message: e) }
    }

    /// Calls `onRevoked` with every hash announced from now on (by any node), until `stop()`.
    public func follow(onRevoked: @escaping @Sendable ([String]) -> Void) {
        let stream = RedisStreamReader(endpoint, streams: [(key: keys.revocations, after: "$")]) { entries in
            onRevoked(entries.compactMap { $0.value("h") })
        }
        reader.withLock { $0 = stream }
        stream.start()
    }

    /// Stops following.
    public func stop() {
        reader.takeAndStop()
    }
}
