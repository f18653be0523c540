/// Shard leases and the nodes that hold them, kept in the shared database (implemented by `CabStore`'s
/// `PostgresStore`; driven by `CabCluster`'s `LeaseKeeper`).
///
/// Every expiry is set and compared on the **database's** clock, never a node's: a node's clock may be seconds
/// off without changing who owns what. A node learns only how long a lease lasts (`durationMilliseconds`) and
/// counts its own acting deadline from when it sent the request (`ShardOwnership`).
public protocol ShardLeaseRepository: Sendable {
    /// Takes `shard`'s lease for `node` for `durationMilliseconds` when it is free (never taken, released, or
    /// expired) or already `node`'s; the fence grows by one (every acquisition is a takeover, so writes the node
    /// made under its previous fence are refused from now on). Nil when another node holds it unexpired.
    func acquireLease(of shard: DispatchShard, for node: ClusterNodeID, durationMilliseconds: Int64) throws
        -> ShardLease?
    /// Extends each lease of `fences` for `durationMilliseconds` from now (the database's now) that `node` still
    /// holds with that fence unexpired, in one statement; the fences stay. Returns the leases renewed (a lost
    /// one is missing).
    func renewLeases(_ fences: [ShardFence], for node: ClusterNodeID, durationMilliseconds: Int64) throws
        -> [ShardLease]
    /// Gives the lease `fence` up at once (a node stopping or handing shards over), so the next owner need not
    /// wait for it to expire. False when `node` no longer held it with that fence.
    @discardableResult
    func releaseLease(_ fence: ShardFence, for node: ClusterNodeID) throws -> Bool
    /// Every shard's lease, in shard order.
    func leases() throws -> [ShardLease]
    /// Records that `node` is alive for `aliveMilliseconds` more and returns the nodes alive now (itself
    /// included), in order: the nodes the shards are shared among.
    func announce(_ node: ClusterNodeID, aliveMilliseconds: Int64) throws -> [ClusterNodeID]
    /// Removes `node` from the live nodes (a clean stop).
    func withdraw(_ node: ClusterNodeID) throws
    /// The database's clock now (`clock_timestamp()`), in milliseconds since the Unix epoch: what a cluster's
    /// nodes set their clocks by (`CabCluster.DatabaseClock`).
    func databaseMilliseconds() throws -> Int64
}

extension ShardLeaseRepository {
    /// Extends the lease `fence` (`renewLeases` for one); nil when it was lost.
    public func renewLease(_ fence: ShardFence, for node: ClusterNodeID, durationMilliseconds: Int64) throws
        -> ShardLease?
    {
        try renewLeases([fence], for: node, durationMilliseconds: durationMilliseconds).first
    }
}

/// Which dispatch shards this node may act on now (`CabCluster.LeaseKeeper`), for `/healthz`.
public protocol ShardOwnershipStatus: Sendable {
    /// The node, as the leases name it.
    var node: ClusterNodeID { get }
    /// The shards this node may act on now.
    var ownedShards: [DispatchShard] { get }
    /// The fence to write `shard`'s trips under while this node may act on it; nil when it may not (another node
    /// owns the shard, or this node's acting deadline passed). Asked before every write an owner makes.
    func fence(of shard: DispatchShard) -> ShardFence?
}
