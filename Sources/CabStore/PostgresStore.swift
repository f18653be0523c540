import CabCore
import CabPostgres
import Dispatch
import Foundation
import Synchronization

/// SwiftCab's store on PostgreSQL (issue 16): the same ports as `SQLiteStore` (`AccountRepository`,
/// `BookingRepository`, `LocationHistoryRepository`) over a bounded pool of libpq connections, for several
/// `cab serve` nodes sharing one database.
///
/// Durability: a write returns after its `COMMIT`, which PostgreSQL acknowledges once its WAL is flushed
/// (`synchronous_commit=on`, the default): as durable as SQLite's `synchronous=FULL`. Races between nodes are
/// settled inside the database: idempotency keys are inserted first with `ON CONFLICT DO NOTHING`, transitions
/// are a compare-and-set on the status, and a unique index lets a driver hold at most one open trip.
/// Methods block: call them from request threads, not the cooperative pool.
public final class PostgresStore: Sendable {
    /// How to connect.
    public struct Configuration: Sendable {
        /// A libpq connection string or URL; several hosts with `target_session_attrs=read-write` find the primary.
        public var conninfo: String
        /// Connections in the pool (shared by the writers and the readers).
        public var connections: Int
        /// Writer threads committing batches side by side (each holds a connection while it commits); at most
        /// `connections`.
        public var writers: Int
        /// Most writes committed in one transaction. At most 64, PostgreSQL's cache of a transaction's
        /// subtransactions (each write runs in a savepoint); past it every snapshot in the server gets slower.
        public var maximumBatch: Int
        /// Apply missing migrations on open (else `cab migrate` must have run).
        public var migrates: Bool
        /// Days of location history partitions made ahead of today (`driver_locations_pYYYYMMDD`).
        public var locationPartitionsAhead: Int
        /// Days of location history kept: older days' partitions are dropped (nil keeps everything).
        public var locationRetentionDays: Int?
        /// How often, while the database is away, the store tries to reach it (to report its return without
        /// waiting for a request), in milliseconds.
        public var probeIntervalMilliseconds: Int
        /// The time for partitions and health reports (injected by tests).
        public var wallClock: @Sendable () -> Instant
        /// Resolved bearer tokens kept in memory (`TokenCache`); 0 reads the database on every request.
        public var tokenCacheCapacity: Int
        /// How long a resolved token is trusted without reading the database again: the longest a token revoked
        /// on another node keeps working on this one. One second by default, the bound issue 17 sets for a
        /// revocation to reach every node; it saves a round trip on nearly every request of a busy client.
        public var tokenCacheMilliseconds: Int64
        /// Monotonic milliseconds for the token cache (injected by tests).
        public var monotonicMilliseconds: @Sendable () -> Int64
        /// A transaction of this store left open this long without a statement (its node paused or hung between
        /// two statements) is ended by the server, which frees its row locks
        /// (`idle_in_transaction_session_timeout`). A fenced write holds its shard's lease row until it commits,
        /// and a takeover must not wait for a paused node: this bounds the wait well inside a lease.
        public var idleInTransactionMilliseconds: Int = 3_000

        /// Creates a configuration.
        public init(
            conninfo: String, connections: Int = 8, writers: Int = 4, maximumBatch: Int = 48, migrates: Bool = true,
            locationPartitionsAhead: Int = 3, locationRetentionDays: Int? = nil, probeIntervalMilliseconds: Int = 1_000,
            wallClock: @escaping @Sendable () -> Instant = SQLiteStore.Configuration.systemWallClock,
            tokenCacheCapacity: Int = 100_000, tokenCacheMilliseconds: Int64 = 1_000,
            monotonicMilliseconds: @escaping @Sendable () -> Int64 = SQLiteStore.Configuration
                .systemMonotonicMilliseconds
        ) {
            precondition(
                tokenCacheCapacity >= 0 && tokenCacheMilliseconds >= 0, "token cache settings are not negative")
            precondition(writers >= 1 && connections >= 1, "at least one writer and one connection")
            precondition((1...64).contains(maximumBatch), "a batch holds 1 to 64 writes")
            precondition(
                locationPartitionsAhead >= 0 && (locationRetentionDays ?? 1) >= 1, "partition days are positive")
            self.conninfo = conninfo
            self.connections = connections
            self.writers = min(writers, connections)
            self.maximumBatch = maximumBatch
            self.migrates = migrates
            self.locationPartitionsAhead = locationPartitionsAhead
            self.locationRetentionDays = locationRetentionDays
            self.probeIntervalMilliseconds = probeIntervalMilliseconds
            self.wallClock = wallClock
            self.tokenCacheCapacity = tokenCacheCapacity
            self.tokenCacheMilliseconds = tokenCacheMilliseconds
            self.monotonicMilliseconds = monotonicMilliseconds
        }
    }

    let configuration: Configuration
    let pool: PostgresPool
    let writer: PostgresGroupCommit
    /// Offer batches' writes: committed without waiting for the WAL flush (`writeUnflushed`).
    let offerWriter: PostgresGroupCommit
    let probe: PostgresProbe
    /// Tokens resolved in the last `tokenCacheMilliseconds`.
    let tokens: TokenCache
    /// The day (days since 1970-01-01) whose partition upkeep last ran; a later day runs it again.
    let maintainedDay = Mutex<Int64>(Int64.min)
    /// What the database's availability says about the store (`/healthz`, `/readyz`, `/metrics`, the log): each
    /// change between available and unavailable is reported once.
    public let health: StoreHealth

    /// Connects, checks the schema and (by default) migrates, and makes today's location partitions. A wrong
    /// password, role or database throws `StoreError` `.misconfigured` saying which; an unreachable server
    /// `.unavailable`; a schema newer than this cab `.schemaTooNew`.
    public init(
        _ configuration: Configuration, onHealthChange: @escaping @Sendable (PostgresPool.Health) -> Void = { _ in }
    ) throws {
        self.configuration = configuration
        tokens = TokenCache(
            capacity: configuration.tokenCacheCapacity, lifetimeMilliseconds: configuration.tokenCacheMilliseconds,
            now: configuration.monotonicMilliseconds)
        let health = StoreHealth(path: Self.redacted(configuration.conninfo), now: configuration.wallClock)
        self.health = health
        do {
            pool = try PostgresPool(
                .init(
                    conninfo: configuration.conninfo, size: configuration.connections,
                    sessionSettings: [
                        "idle_in_transaction_session_timeout": String(configuration.idleInTransactionMilliseconds)
                    ], openAtStart: configuration.connections),
                onHealthChange: { change in
                    switch change {
                    case .available: health.databaseAvailable()
                    case .unavailable(let reason): health.databaseUnavailable(reason)
                    }
                    onHealthChange(change)
                })
        } catch {
            throw StoreError.translatingPostgres(error)
        }
        writer = PostgresGroupCommit(
            pool: pool, writers: configuration.writers, maximumBatch: configuration.maximumBatch)
        offerWriter = PostgresGroupCommit(
            pool: pool, writers: max(1, configuration.writers / 2), maximumBatch: configuration.maximumBatch,
            waitsForFlush: false)
        probe = PostgresProbe(pool: pool, health: health, intervalMilliseconds: configuration.probeIntervalMilliseconds)
        do {
            try pool.withConnection { c in
                if configuration.migrates {
                    try PostgresSchema.migrate(c)
                } else {
                    let version = try PostgresSchema.version(c)
                    guard version == PostgresSchema.latestVersion else {
                        throw StoreError(
                            .schemaTooNew,
                            "The PostgreSQL database is at schema version \(version), this cab needs "
                                + "\(PostgresSchema.latestVersion): run `cab migrate --postgres URL`.")
                    }
                }
            }
            try maintainLocationPartitions()
        } catch {
            close()
            throw StoreError.translatingPostgres(error)
        }
    }

    /// Finishes queued writes and stops the writers and the probe; later writes throw `.closed`.
    public func close() {
        offerWriter.close()
        writer.close()
        probe.close()
    }

    deinit { close() }

    /// Writes committed so far and the transactions they took (group commit's effect: writes / batches).
    public var writeStatistics: (batches: Int, writes: Int) {
        let s = writer.statistics
        let o = offerWriter.statistics
        return (s.batches + o.batches, s.jobs + o.jobs)
    }

    /// Write batches run again after losing to another transaction (a deadlock, a serialization failure), over
    /// both writers since the store opened. Each deadlock costs PostgreSQL's `deadlock_timeout` before it is found.
    public var retriedWriteBatches: Int { writer.retriedBatches + offerWriter.retriedBatches }

    /// Applies missing migrations to the database at `conninfo` (`cab migrate --postgres URL`); returns the
    /// versions applied (empty when it was up to date).
    public static func migrate(conninfo: String) throws -> [Int] {
        let c = try PostgresConnection(conninfo: conninfo)
        return try PostgresSchema.migrate(c)
    }

    /// The schema version this cab writes.
    public static var schemaVersion: Int { PostgresSchema.latestVersion }

    /// Runs `body` within the next group commit (its own savepoint of a transaction shared with other
    /// callers' writes); returns once the commit is durable.
    @discardableResult
    func write<T: Sendable>(_ body: @escaping (PostgresConnection) throws -> T) throws -> T {
        try writer.write(body)
    }

    /// `write`, without waiting for the commit's WAL to be flushed (`synchronous_commit` off for its batch): for a
    /// write whose loss in a server crash (not a clean stop) costs nothing a user keeps. A later flushed commit
    /// flushes it too (the WAL is written in order), so anything that depends on it and was acknowledged is kept
    /// with it.
    @discardableResult
    func writeUnflushed<T: Sendable>(_ body: @escaping (PostgresConnection) throws -> T) throws -> T {
        try offerWriter.write(body)
    }

    /// Runs `body` on a pooled connection outside an explicit transaction. A connection found dead (the server
    /// restarted since it was last used) is replaced and `body` runs once more: reads are safe to repeat.
    @discardableResult
    func read<T>(_ body: (PostgresConnection) throws -> T) throws -> T {
        do {
            do {
                return try pool.withConnection(body)
            } catch let error as PostgresError where error.isUnavailable {
                return try pool.withConnection(body)
            }
        } catch {
            throw StoreError.translatingPostgres(error)
        }
    }

    /// "host/dbname" of a connection string, without user or password, for messages and the log.
    static func redacted(_ conninfo: String) -> String {
        if conninfo.hasPrefix("postgres://") || conninfo.hasPrefix("postgresql://") {
            let rest = conninfo.split(separator: "/", maxSplits: 2, omittingEmptySubsequences: false).dropFirst(2).first
            let hostAndPath = rest.map { $0.split(separator: "@").last.map(String.init) ?? "" } ?? ""
            return "postgres://" + (hostAndPath.split(separator: "?").first.map(String.init) ?? "")
        }
        var host = "localhost"
        var database = "?"
        for pair in conninfo.split(separator: " ") {
            let parts = pair.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2 else { continue }
            if parts[0] == "host" { host = parts[1] }
            if parts[0] == "dbname" { database = parts[1] }
        }
        return "PostgreSQL \(host)/\(database)"
    }

    /// The shard (0-63) of a booking id, stored with every booking so dispatch tables can be distributed by it
    /// (FNV-1a of the id's bytes).
    static func shard(of id: BookingID) -> Int { DispatchShard(of: id).index }
}
