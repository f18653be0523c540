import CabCore
import CabTracking

/// The port through which tracking shares live positions and the ingest rate limit with the other nodes of a
/// cluster (`CabCluster.RedisFleetReplication` implements it over Redis; `cab serve --redis` wires it). Without
/// one, `TrackingService` is a single node's, as before.
public protocol FleetReplication: AnyObject, Sendable {
    /// Hands a position this node accepted to the other nodes. Must not block: a slow or absent link queues or
    /// drops, never holds up ingest.
    func publish(_ driver: DriverID, at position: DriverPosition)
    /// True while the cluster numbers the fleet's events (its link is up): positions and status changes are
    /// published to it and come back numbered, the same ids on every node (`TrackingService.applyClusterEvents`);
    /// false while this node numbers its own.
    var numbersFleetEvents: Bool { get }
    /// Notes the highest fleet event id this node numbered itself, so that the cluster's later ids are above it.
    func observe(eventID: UInt64)
    /// Asks the cluster-wide rate limit for one batch of `driver`'s fixes (the node's own limit applies as well).
    func admitBatch(from driver: DriverID) -> ClusterAdmission
    /// The link's state, for `/healthz`.
    var status: ClusterLinkStatus { get }
    /// Stops publishing and following (after a last send of what is queued).
    func stop()
}

/// What the cluster-wide rate limit said about one batch.
public enum ClusterAdmission: Hashable, Sendable {
    /// Within the limit.
    case allowed
    /// Over it: retry after this many seconds.
    case refused(retryAfterSeconds: Int)
    /// The cluster could not be asked; the node's own limit decides alone.
    case unavailable
}

/// How a node's link to the cluster is doing.
public struct ClusterLinkStatus: Hashable, Sendable {
    /// This node's id.
    public var node: String
    /// The city the node serves (its share of the shared keys).
    public var city: String
    /// True while the link answers; false while the node runs on its own (degraded, not down).
    public var connected: Bool
    /// What is wrong and what to do, while not connected.
    public var detail: String?
    /// Positions published since start.
    public var published: Int
    /// Positions received from other nodes since start (the warm start included).
    public var received: Int
    /// Positions waiting to be published (kept while the link is down; newest per driver).
    public var pending: Int

    /// A status.
    public init(
        node: String, city: String, connected: Bool, detail: String? = nil, published: Int = 0, received: Int = 0,
        pending: Int = 0
    ) {
        self.node = node
        self.city = city
        self.connected = connected
        self.detail = detail
        self.published = published
        self.received = received
        self.pending = pending
    }
}

extension TrackingService {
    /// Connects this node's tracking to a cluster: accepted positions are published through `replication`, and
    /// each batch of fixes also asks its cluster-wide rate limit. Call before serving.
    public func connect(_ replication: any FleetReplication) {
        replicationLink.withLock { $0 = replication }
        streams.followCluster()
    }

    /// The cluster link, when `connect` was called.
    public var replication: (any FleetReplication)? { replicationLink.withLock { $0 } }

    /// Applies positions other nodes accepted to this node's fleet (newest fix wins). The fleet stream hears of
    /// them only through `applyClusterEvents`, numbered by the cluster: numbering them here (a warm start's, say)
    /// would put this node's ids ahead of the cluster's, and its stream would drop the cluster's events.
    public func applyReplicated(_ positions: [(driver: DriverID, position: DriverPosition)]) {
        let applied = fleet.applyReplicated(positions)
        driversMoved(applied.map(\.driver))
    }

    /// Hands the cluster's fleet events (every node's positions, this node's too, with the cluster's dense ids, in
    /// order) to the fleet streams, so that a client resumes on any node with `Last-Event-ID`.
    public func applyClusterEvents(_ events: [(id: UInt64, driver: DriverID, position: DriverPosition)]) {
        streams.publishNumbered(events)
    }

    /// Tells the fleet stream of `driver`'s new position: through the cluster while it numbers the events (they
    /// come back through `applyClusterEvents`), else numbered here.
    func announce(_ driver: DriverID, at position: DriverPosition) {
        if let replication, replication.numbersFleetEvents {
            replication.publish(driver, at: position)
        } else {
            streams.publish(driver, at: position)
        }
    }

    /// The cluster-wide rate limit's refusal of a batch (counted as dropped), or nil to go on with the node's rules.
    func clusterRefusal(
        of fixes: [LocationFix], from driver: DriverID, by replication: any FleetReplication
    ) -> IngestOutcome? {
        guard case .refused(let seconds) = replication.admitBatch(from: driver) else { return nil }
        var outcome = IngestOutcome(retryAfterSeconds: max(1, seconds))
        outcome.dropped[.rateLimited] = fixes.count
        counters.dropped.increment(["reason": DropReason.rateLimited.rawValue], by: Double(fixes.count))
        return outcome
    }

}
