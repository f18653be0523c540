/// The Redis keys one city's nodes share, all under one prefix (`cab:{city}:`), so that several cities (or test
/// runs) can share a server. The braces make every key hash to one slot, as Redis Cluster needs for functions
/// that touch several keys.
public struct ClusterKeys: Sendable, Hashable {
    /// The prefix, e.g. `cab:{helsinki}:`.
    public let prefix: String

    /// The keys of `city` (letters, digits, `-` and `_`).
    public init(city: String) {
        precondition(
            !city.isEmpty
                && city.utf8.allSatisfy { b in
                    (b >= 48 && b <= 57) || (b >= 65 && b <= 90) || (b >= 97 && b <= 122) || b == 45 || b == 95
                }, "a city name is letters, digits, '-' and '_'")
        prefix = "cab:{\(city)}:"
    }

    /// The stream of position batches every node publishes to and reads from.
    public var positions: String { prefix + "positions" }
    /// The hash of each driver's newest position (a new or restarted node starts warm from it).
    public var latest: String { prefix + "latest" }
    /// The stream of revoked token hashes.
    public var revocations: String { prefix + "revocations" }
    /// The counter dense fleet event ids are taken from.
    public var eventSequence: String { prefix + "event-seq" }
    /// The hash of the live nodes and the map and tariff each runs (`ClusterMembership`).
    public var members: String { prefix + "members" }
    /// The hash of a rate-limit bucket.
    public func bucket(_ name: String) -> String { prefix + "bucket:" + name }
}
