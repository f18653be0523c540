import CabAPI
import CabCluster
import CabCore
import CabDispatch
import CabHTTP
import CabImport
import CabRedis
import CabStore
import Foundation
import Synchronization

/// `cab serve --redis`: joining a city's nodes (same map, same tariff) and connecting tracking to them.
extension ServiceLoader {
    /// Joins `cluster`'s city before this node serves: every live node must run the same map (the imported
    /// extract's fingerprint and the routing index's) and the same tariff, or this one exits (65 for another map,
    /// 64 for another tariff) naming both and what to do. Redis away at start is not fatal: the node serves on
    /// its own, and its heartbeat registers it (and logs a disagreement) once Redis answers.
    static func joinMembership(_ cluster: ClusterSettings, dataDirectory: String, services: Services)
        -> ClusterMembership
    {
        let identity = clusterIdentity(node: cluster.node, dataDirectory: dataDirectory, services: services)
        let membership = ClusterMembership(
            redis: RedisClient(cluster.endpoint, timeoutMilliseconds: 1_000), keys: ClusterKeys(city: cluster.city),
            identity: identity)
        do {
            let outcome = try membership.join()
            if let refusal = refusal(outcome, of: identity, cluster: cluster, dataDirectory: dataDirectory) {
                Console.fail(refusal.message, code: refusal.code)
            }
        } catch {
            Log.warning(
                "cannot compare this node's map and tariff with the other nodes': Redis does not answer; serving on "
                    + "this node's own state until it does",
                ["redis": "\(cluster.endpoint)", "problem": error.message])
        }
        membership.keepAlive { outcome in
            if let refusal = refusal(outcome, of: identity, cluster: cluster, dataDirectory: dataDirectory) {
                Log.error("cluster disagreement", ["problem": refusal.message])
            }
        }
        return membership
    }

    /// The map and tariff this node runs, as the other nodes compare them.
    static func clusterIdentity(node: String, dataDirectory: String, services: Services)
        -> ClusterMembership.Identity
    {
        var map = "none"
        var description = "no map"
        if let manifest = try? DataDirectory(path: dataDirectory).manifest() {
            let extract = (manifest.source as NSString).lastPathComponent
            map = "source:\(String(manifest.fingerprint, radix: 16))"
            if let graph = services.routing?.graph {
                map += ",routing:\(String(graph.contractionFingerprint, radix: 16))"
            }
            description =
                "\(extract) (fingerprint \(String(manifest.fingerprint, radix: 16)), imported "
                + "\(manifest.importedAt))"
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // The tariff is plain numbers and a currency code: encoding it cannot fail.
        let tariff = (try? encoder.encode(services.tariff)).map { String(decoding: $0, as: UTF8.self) } ?? "?"
        return ClusterMembership.Identity(
            node: node, map: map, mapDescription: description.filter { $0 != "\t" && $0 != "\n" }, tariff: tariff)
    }

    /// Why `outcome` keeps this node out, with the exit code; nil when it joined.
    static func refusal(
        _ outcome: ClusterMembership.JoinOutcome, of me: ClusterMembership.Identity, cluster: ClusterSettings,
        dataDirectory: String
    ) -> (message: String, code: Int32)? {
        switch outcome {
        case .joined:
            return nil
        case .otherMap(let other):
            return (
                "cluster.city \(cluster.city): node \(other.node) serves the map \(other.mapDescription), but this "
                    + "node's data directory \(dataDirectory) holds \(me.mapDescription); every node of a city must "
                    + "run the same map: import the same extract here (`cab import FILE --data \(dataDirectory)`), "
                    + "stop the nodes of the other map first, or serve another city (cluster.city)",
                65
            )
        case .otherTariff(let other):
            return (
                "cluster.city \(cluster.city): node \(other.node) charges the tariff \(other.tariff), but this node "
                    + "charges \(me.tariff); every node of a city must use the same tariff: give this node the same "
                    + "tariff_file (--tariff) as the others, or stop them first",
                64
            )
        }
    }

    /// Connects `tracking` to the cluster (`cab serve --redis`): loads the fleet as Redis holds it, then follows
    /// the other nodes' positions and publishes this node's. Redis away at start is not fatal: the node starts
    /// on its own state, says so in `/healthz`, and joins when Redis answers.
    static func joinCluster(
        _ cluster: ClusterSettings, tracking: TrackingService, settings: ServeSettings, metrics: MetricsRegistry
    ) {
        let ingest = settings.tracking.ingest
        let link = RedisFleetReplication(
            configuration: .init(
                endpoint: cluster.endpoint, node: cluster.node, city: cluster.city,
                rateLimitBurst: Double(ingest.rateLimitBurst),
                rateLimitBatchesPerSecond: Double(ingest.rateLimitBatchesPerSecond)),
            metrics: metrics,
            log: { message, metadata in
                if message.hasPrefix("cluster link down") {
                    Log.warning(message, metadata)
                } else {
                    Log.info(message, metadata)
                }
            })
        tracking.connect(link)
        let warm = link.start(
            applying: { [weak tracking] positions in tracking?.applyReplicated(positions) },
            events: { [weak tracking] events in tracking?.applyClusterEvents(events) })
        Log.info(
            "cluster joined",
            ["node": cluster.node, "city": cluster.city, "redis": "\(cluster.endpoint)", "warm_positions": "\(warm)"])
    }

    /// Token revocations across the cluster: a sign-out on this node is announced to the others, and one on
    /// another node drops the token from this node's cache at once (`store.postgres_token_cache_ms` bounds it
    /// when Redis is away). Stop the returned follower at shutdown.
    static func followRevocations(_ cluster: ClusterSettings, store: any ApplicationStore) -> TokenRevocations {
        let revocations = TokenRevocations(redis: RedisClient(cluster.endpoint), keys: ClusterKeys(city: cluster.city))
        revocations.follow { hashes in
            for hash in hashes.compactMap(TokenHash.init(hex:)) { store.forgetCachedToken(hash) }
        }
        return revocations
    }
}

extension ServiceLoader {
    /// This node's share of the 64 dispatch shards (issue 18, docs/dispatch-ownership.md), kept in the shared
    /// PostgreSQL database; `stop()` at shutdown hands them over. Logs when the database cannot be asked (once,
    /// until it answers again).
    /// With `dispatch`, the node dispatches only the trips of the shards it holds, writing under their fences
    /// (`DispatchCoordinator.dispatchByShard`): it takes a shard's trips over when it starts acting on it.
    static func leaseKeeper(
        _ cluster: ClusterSettings, repository: any ShardLeaseRepository & FencedDispatchRepository,
        dispatch: DispatchCoordinator?
    ) -> LeaseKeeper {
        let failing = Mutex(false)
        let node = ClusterNodeID(cluster.node)
        let keeper = LeaseKeeper(repository: repository, configuration: .init(node: node)) { [weak dispatch] event in
            switch event {
            case .startActing(let fence):
                failing.withLock { $0 = false }  // the share itself is in /healthz ("dispatch")
                dispatch?.startActing(fence)
            case .stopActing(let shard):
                failing.withLock { $0 = false }
                dispatch?.stopActing(shard)
            case .failed(let message):
                if !failing.withLock({ f in
                    defer { f = true }; return f
                }) {
                    Log.warning("dispatch shard leases not kept", ["node": node.rawValue, "error": message])
                }
            }
        }
        dispatch?.dispatchByShard(ShardedDispatch(ownership: keeper, store: repository))
        return keeper
    }
}

/// The cluster's `TokenRevocationBus`: announces over Redis (`TokenRevocations`); an announcement Redis did not
/// take is logged (the other nodes' caches let the token go by themselves).
struct RedisTokenRevocationBus: TokenRevocationBus {
    let revocations: TokenRevocations

    func announce(_ hash: TokenHash) {
        do {
            try revocations.announce(hash.hex)
        } catch {
            Log.warning("token revocation not announced to the other nodes", ["error": "\(error.message)"])
        }
    }
}
