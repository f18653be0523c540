import CabCore
import CabPostgres

/// Shard leases in `dispatch_shard_leases` (schema v4): one row per shard, its fence growing on every takeover,
/// each grant logged in `dispatch_shard_fences`; live nodes in `dispatch_nodes`. Every expiry is set and
/// compared with the database's `clock_timestamp()`, never a node's clock. Each call is one statement in its
/// own transaction on a pooled connection (not the group commit: a renewal must not wait for a batch).
extension PostgresStore: ShardLeaseRepository {
    /// A lease row still locked by its old owner's open write (a fenced write holds it `FOR SHARE` until it
    /// commits; a node paused mid-transaction holds it until the server ends that transaction,
    /// `idleInTransactionMilliseconds`) is skipped, not waited for: the caller's next round asks again, and
    /// its other leases' renewals never queue behind it.
    public func acquireLease(of shard: DispatchShard, for node: ClusterNodeID, durationMilliseconds: Int64) throws
        -> ShardLease?
    {
        precondition(durationMilliseconds > 0, "a lease lasts a while")
        return try leaseStatement { c in
            try c.query(
                """
                WITH free AS (
                    SELECT shard FROM dispatch_shard_leases
                    WHERE shard = $1::smallint
                        AND (owner IS NULL OR owner = $2::text OR expires_at IS NULL OR expires_at <= clock_timestamp())
                    FOR UPDATE SKIP LOCKED
                ), taken AS (
                    UPDATE dispatch_shard_leases AS l
                    SET owner = $2::text, fence = l.fence + 1, acquired_at = clock_timestamp(),
                        expires_at = clock_timestamp() + $3::float8 * interval '1 millisecond'
                    FROM free WHERE l.shard = free.shard
                    RETURNING l.shard, l.fence, l.owner, l.acquired_at, l.expires_at
                ), logged AS (
                    INSERT INTO dispatch_shard_fences (shard, fence, owner, acquired_at)
                    SELECT shard, fence, owner, acquired_at FROM taken
                )
                SELECT fence, (extract(epoch FROM expires_at) * 1000)::bigint FROM taken
                """,
                [shard.index, node.rawValue, durationMilliseconds] as [any PostgresBindable]
            ).first.map { row in
                try Self.lease(shard: shard, owner: node, fence: row.int64(0), expiresMilliseconds: row.int64(1))
            }
        }
    }

    public func renewLeases(_ fences: [ShardFence], for node: ClusterNodeID, durationMilliseconds: Int64) throws
        -> [ShardLease]
    {
        precondition(durationMilliseconds > 0, "a lease lasts a while")
        guard !fences.isEmpty else { return [] }
        return try leaseStatement { c in
            try c.query(
                """
                UPDATE dispatch_shard_leases AS l
                SET expires_at = clock_timestamp() + $4::float8 * interval '1 millisecond'
                FROM unnest($2::smallint[], $3::bigint[]) AS r(shard, fence)
                WHERE l.shard = r.shard AND l.fence = r.fence AND l.owner = $1::text
                    AND l.expires_at > clock_timestamp()
                RETURNING l.shard, l.fence, (extract(epoch FROM l.expires_at) * 1000)::bigint
                """,
                [
                    node.rawValue, Self.textArray(fences.map { String($0.shard.index) }),
                    Self.textArray(fences.map { String($0.fence) }), durationMilliseconds,
                ] as [any PostgresBindable]
            ).rows.map { row in
                guard let shard = try row.int(0), (0..<DispatchShard.count).contains(shard) else {
                    throw StoreError(.corruptRow, "A renewed shard lease came back without its shard.")
                }
                return try Self.lease(
                    shard: DispatchShard(shard), owner: node, fence: row.int64(1), expiresMilliseconds: row.int64(2))
            }.sorted { $0.shard < $1.shard }
        }
    }

    @discardableResult
    public func releaseLease(_ fence: ShardFence, for node: ClusterNodeID) throws -> Bool {
        try leaseStatement { c in
            try c.query(
                """
                UPDATE dispatch_shard_leases SET owner = NULL, expires_at = clock_timestamp()
                WHERE shard = $1::smallint AND owner = $2::text AND fence = $3::bigint
                """,
                [fence.shard.index, node.rawValue, fence.fence] as [any PostgresBindable]
            ).affectedRows == 1
        }
    }

    public func leases() throws -> [ShardLease] {
        try read { c in
            try c.query(
                """
                SELECT shard, fence, owner, (extract(epoch FROM expires_at) * 1000)::bigint,
                    (owner IS NOT NULL AND expires_at > clock_timestamp())
                FROM dispatch_shard_leases ORDER BY shard
                """
            ).rows.map { row in
                guard let shard = try row.int(0), (0..<DispatchShard.count).contains(shard),
                    let fence = try row.int64(1)
                else { throw StoreError(.corruptRow, "A shard lease row is damaged.") }
                return ShardLease(
                    fence: ShardFence(shard: DispatchShard(shard), fence: fence),
                    owner: row.string(2).map(ClusterNodeID.init),
                    expiresAt: try row.int64(3).map { Instant(millisecondsSinceEpoch: $0) },
                    isLive: try row.bool(4) ?? false)
            }
        }
    }

    public func announce(_ node: ClusterNodeID, aliveMilliseconds: Int64) throws -> [ClusterNodeID] {
        precondition(aliveMilliseconds > 0, "a node is alive a while")
        try leaseStatement { c in
            try c.query(
                """
                INSERT INTO dispatch_nodes (node, expires_at)
                VALUES ($1::text, clock_timestamp() + $2::float8 * interval '1 millisecond')
                ON CONFLICT (node) DO UPDATE SET expires_at = excluded.expires_at
                """,
                [node.rawValue, aliveMilliseconds] as [any PostgresBindable])
        }
        return try read { c in
            try c.query("SELECT node FROM dispatch_nodes WHERE expires_at > clock_timestamp() ORDER BY node").rows
                .compactMap { $0.string(0).map(ClusterNodeID.init) }
        }
    }

    public func withdraw(_ node: ClusterNodeID) throws {
        try leaseStatement { c in try c.query("DELETE FROM dispatch_nodes WHERE node = $1::text", [node.rawValue]) }
    }

    public func databaseMilliseconds() throws -> Int64 {
        try leaseStatement { c in
            guard let ms = try c.query("SELECT (extract(epoch FROM clock_timestamp()) * 1000)::bigint").first?.int64(0)
            else { throw StoreError(.corruptRow, "The database did not say what time it is.") }
            return ms
        }
    }

    /// The server's `deadlock_timeout` in milliseconds: how long a transaction waits on a lock before PostgreSQL
    /// looks for a deadlock. Any deadlock left (rule 16 takes a trip's rows in one order) holds its callers this
    /// long (docs/dispatch-ownership.md, "PostgreSQL settings": 100 ms is what cab expects; the default is 1 s).
    public func deadlockTimeoutMilliseconds() throws -> Int {
        try leaseStatement { c in
            guard
                let ms = try c.query("SELECT setting::int FROM pg_settings WHERE name = 'deadlock_timeout'").first?.int(
                    0)
            else { throw StoreError(.corruptRow, "The database did not say its deadlock_timeout.") }
            return ms
        }
    }

    /// Runs one lease statement on a pooled connection (autocommit), not repeated on a lost connection: the
    /// caller's next round asks again (a lost acquisition only skips a fence number).
    @discardableResult
    func leaseStatement<T>(_ body: (PostgresConnection) throws -> T) throws -> T {
        do {
            return try pool.withConnection(body)
        } catch {
            throw StoreError.translatingPostgres(error)
        }
    }

    private static func lease(shard: DispatchShard, owner: ClusterNodeID, fence: Int64?, expiresMilliseconds: Int64?)
        throws -> ShardLease
    {
        guard let fence, let expiresMilliseconds else {
            throw StoreError(.corruptRow, "A shard lease came back without its fence or expiry.")
        }
        return ShardLease(
            fence: ShardFence(shard: shard, fence: fence), owner: owner,
            expiresAt: Instant(millisecondsSinceEpoch: expiresMilliseconds), isLive: true)
    }
}
