import CabCore
import CabDispatch
import CabHTTP
import CabStore

extension CabApplication {
    /// `GET /healthz` (liveness: 200 while the process serves, with the store's state), `GET /readyz`
    /// (readiness: 503 while the store cannot take requests) and `GET /metrics` (with `store_healthy`). All three
    /// run inline on the epoll threads (they read a snapshot and never block), so they answer while the handler
    /// pool is busy.
    func registerHealthEndpoints(on router: inout Router) {
        let store = services.store
        let tracking = services.tracking  // its cluster link is connected after the router is made
        let shards = services.shards
        router.get("/healthz", execution: .inline) { _ in
            var json = JSONText(capacity: 256)
            let snapshot = store?.health.snapshot
            let ready = snapshot?.isHealthy ?? true
            let link = tracking?.replication?.status
            json.raw("{")
            json.key("ready", first: true)
            json.raw(ready ? "true" : "false")
            json.key("status")
            json.string(ready && link?.connected != false ? "ok" : "degraded")
            json.key("store")
            Self.write(snapshot, to: &json)
            if let link {
                json.key("cluster")
                Self.write(link, to: &json)
            }
            if let shards {
                // `{"node", "shards_owned", "shards"}`: the dispatch shards this node holds leases on now.
                let owned = shards.ownedShards
                json.key("dispatch")
                json.raw("{")
                json.key("node", first: true)
                json.string(shards.node.rawValue)
                json.key("shards_owned")
                json.integer(owned.count)
                json.key("shards")
                json.raw("[" + owned.map { String($0.index) }.joined(separator: ",") + "]")
                json.raw("}")
            }
            json.raw("}")
            return .bytes(json.bytes, contentType: "application/json")
        }
        router.get("/readyz", execution: .inline) { _ in
            guard let snapshot = store?.health.snapshot, let problem = snapshot.problem else {
                return .json(["ready": true])
            }
            throw ProblemType.storeUnavailable.error(
                "\(problem.rawValue): \(snapshot.detail)", headers: ["Retry-After": "5"])
        }
        router.get("/metrics", execution: .inline, handler: StandardHandlers.metrics(metrics))
    }

    /// `{"status": "ok"|"failing"|"absent", "problem", "detail", "since", "failures"}`.
    static func write(_ snapshot: StoreHealth.Snapshot?, to json: inout JSONText) {
        json.raw("{")
        json.key("status", first: true)
        guard let snapshot else {
            json.string("absent")
            json.raw("}")
            return
        }
        json.string(snapshot.isHealthy ? "ok" : "failing")
        if let problem = snapshot.problem {
            json.key("problem")
            json.string(problem.rawValue)
            json.key("detail")
            json.string(snapshot.detail)
            json.key("failures")
            json.integer(snapshot.failures)
            if let since = snapshot.since {
                json.key("since")
                json.string(since.description)
            }
        }
        json.raw("}")
    }

    /// `{"status": "connected"|"degraded", "node", "city", "detail", "published", "received", "pending"}`: a node
    /// whose Redis link is down still serves (degraded, not down), with its own positions and rate limit.
    static func write(_ link: ClusterLinkStatus, to json: inout JSONText) {
        json.raw("{")
        json.key("status", first: true)
        json.string(link.connected ? "connected" : "degraded")
        json.key("node")
        json.string(link.node)
        json.key("city")
        json.string(link.city)
        if let detail = link.detail {
            json.key("detail")
            json.string(detail)
        }
        json.key("published")
        json.integer(link.published)
        json.key("received")
        json.integer(link.received)
        json.key("pending")
        json.integer(link.pending)
        json.raw("}")
    }

    /// Keeps `store_healthy` (1 or 0) and `store_problems_total{problem}` in step with the store's health.
    func watchStoreHealth() {
        guard let store = services.store else { return }
        let healthy = metrics.gauge("store_healthy", help: "1 while the store takes requests, 0 while it is failing.")
        let problems = metrics.counter(
            "store_problems_total", help: "Times the store began failing, by problem (disk_full, io_error, corrupt).",
            labelNames: ["problem"])
        healthy.set(store.health.snapshot.isHealthy ? 1 : 0)
        store.health.observe { snapshot in
            healthy.set(snapshot.isHealthy ? 1 : 0)
            if let problem = snapshot.problem { problems.increment(["problem": problem.rawValue]) }
        }
    }
}
