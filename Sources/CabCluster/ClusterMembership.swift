import CabRedis
import Foundation
import Synchronization

/// The nodes serving one city, each with the map and tariff it runs (`cab:{city}:members`, one field per node,
/// refreshed every few seconds on the server's clock): a node joins only when every node still alive runs the
/// same map and tariff (`cab_join`), so that a rider's fare and a driver's route never depend on the node.
///
/// A node that stops cleanly leaves (`HDEL`); one that was killed is forgotten once its heartbeat is older than
/// `aliveMilliseconds`, after which a city can move to another map by restarting every node on it.
public final class ClusterMembership: Sendable {
    /// What a node runs, as the other nodes compare it.
    public struct Identity: Sendable, Hashable {
        /// The node's id.
        public var node: String
        /// The map's identity (compared): e.g. the imported extract's fingerprint and the routing index's.
        public var map: String
        /// The map for people: e.g. `monaco.osm.pbf (fingerprint 0x…, imported …)`.
        public var mapDescription: String
        /// The tariff (compared), e.g. its JSON.
        public var tariff: String

        /// An identity. No field may hold a tab or a newline (they separate the fields in Redis).
        public init(node: String, map: String, mapDescription: String, tariff: String) {
            for field in [node, map, mapDescription, tariff] {
                precondition(!field.contains("\t") && !field.contains("\n"), "identity fields hold no tab or newline")
            }
            self.node = node
            self.map = map
            self.mapDescription = mapDescription
            self.tariff = tariff
        }

        /// `map \t tariff \t description` (the server prepends the heartbeat's time).
        var line: String { "\(map)\t\(tariff)\t\(mapDescription)" }

        /// Reads `seen_ms \t map \t tariff \t description` of `node`; nil when malformed.
        init?(node: String, stored: String) {
            let parts = stored.split(separator: "\t", omittingEmptySubsequences: false)
            guard parts.count == 4 else { return nil }
            self.node = node
            map = String(parts[1])
            tariff = String(parts[2])
            mapDescription = String(parts[3])
        }
    }

    /// What joining found.
    public enum JoinOutcome: Sendable, Hashable {
        /// Registered: every live node runs the same map and tariff (or there was none).
        case joined
        /// Refused: `other` (alive) runs another map.
        case otherMap(Identity)
        /// Refused: `other` runs the same map with another tariff.
        case otherTariff(Identity)
    }

    /// This node.
    public let identity: Identity
    /// A node whose heartbeat is older than this is no longer counted.
    public let aliveMilliseconds: Int
    private let redis: RedisClient
    private let keys: ClusterKeys
    private let stopping = Atomic<Bool>(false)
    private let finished = Atomic<Bool>(true)

    /// Membership of `identity.node` in `keys`' city.
    public init(redis: RedisClient, keys: ClusterKeys, identity: Identity, aliveMilliseconds: Int = 15_000) {
        precondition(aliveMilliseconds >= 1_000, "a heartbeat window of a second or more")
        self.redis = redis
        self.keys = keys
        self.identity = identity
        self.aliveMilliseconds = aliveMilliseconds
    }

    /// Compares this node with the live nodes and registers it when they agree (atomically, on the server).
    public func join() throws(RedisError) -> JoinOutcome { try register(mode: "join") }

    private func register(mode: String) throws(RedisError) -> JoinOutcome {
        let reply = try ClusterFunctions.call(
            redis, "cab_join", keys: [keys.members],
            arguments: [identity.node, aliveMilliseconds, identity.map, identity.tariff, identity.line, mode])
        let parts = reply.elements
        guard parts.count == 3, let kind = parts[0].string else {
            throw RedisError(code: .unexpectedReply, message: "cab_join answered \(reply)")
        }
        if kind == "ok" { return .joined }
        guard let node = parts[1].string, let stored = parts[2].string,
            let other = Identity(node: node, stored: stored)
        else {
            throw RedisError(code: .unexpectedReply, message: "cab_join answered \(reply)")
        }
        return kind == "map" ? .otherMap(other) : .otherTariff(other)
    }

    /// The nodes alive now (this one included once joined), by id.
    public func members() throws(RedisError) -> [Identity] {
        let flat = try redis.command("HGETALL", keys.members).elements
        var found: [Identity] = []
        var i = 0
        while i + 1 < flat.count {
            if let node = flat[i].string, let stored = flat[i + 1].string,
                let identity = Identity(node: node, stored: stored)
            {
                found.append(identity)
            }
            i += 2
        }
        return found.sorted { $0.node < $1.node }
    }

    /// Refreshes this node's heartbeat every third of `aliveMilliseconds` on a thread of its own (also after a
    /// Redis restart emptied the hash; `onRefused` hears of a live node that runs another map, e.g. one that joined
    /// while Redis was away), until `leave()`.
    public func keepAlive(onRefused: @escaping @Sendable (JoinOutcome) -> Void = { _ in }) {
        guard finished.load(ordering: .acquiring) else { return }
        stopping.store(false, ordering: .releasing)
        finished.store(false, ordering: .releasing)
        let period = UInt32(aliveMilliseconds / 3) * 1_000
        let thread = Thread { [self] in
            defer { finished.store(true, ordering: .releasing) }
            var waited: UInt32 = 0
            while !stopping.load(ordering: .acquiring) {
                usleep(50_000)
                waited += 50_000
                guard waited >= period else { continue }
                waited = 0
                if let outcome = try? register(mode: "beat"), outcome != .joined { onRefused(outcome) }
            }
        }
        thread.name = "cluster-members"
        thread.start()
    }

    /// Stops the heartbeat and removes this node (a clean stop). Redis away: the entry ages out.
    public func leave() {
        stopping.store(true, ordering: .releasing)
        while !finished.load(ordering: .acquiring) { usleep(5_000) }
        _ = try? redis.command("HDEL", keys.members, identity.node)
    }
}
