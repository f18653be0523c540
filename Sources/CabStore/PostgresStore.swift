import CabCore
import CabPostgres
import Dispatch

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
        /// Connections in the pool.
        public var connections: Int
        /// Apply missing migrations on open (else `cab migrate` must have run).
        public var migrates: Bool

        /// Creates a configuration.
        public init(conninfo: String, connections: Int = 8, migrates: Bool = true) {
            self.conninfo = conninfo
            self.connections = connections
            self.migrates = migrates
        }
    }

    let pool: PostgresPool
    /// Runs `create(...completion:)` off the caller's thread; the pool bounds how many run at once.
    let asyncWrites = DispatchQueue(label: "cab.postgres.writes", attributes: .concurrent)

    /// Connects, checks the schema and (by default) migrates. A wrong password, role or database throws a
    /// `PostgresError` with `isConfigurationError`; a schema newer than this cab throws `schemaTooNew`.
    public init(
        _ configuration: Configuration, onHealthChange: @escaping @Sendable (PostgresPool.Health) -> Void = { _ in }
    ) throws {
        pool = try PostgresPool(
            .init(conninfo: configuration.conninfo, size: configuration.connections), onHealthChange: onHealthChange)
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
    }

    /// Applies missing migrations to the database at `conninfo` (`cab migrate --postgres URL`); returns the
    /// versions applied (empty when it was up to date).
    public static func migrate(conninfo: String) throws -> [Int] {
        let c = try PostgresConnection(conninfo: conninfo)
        return try PostgresSchema.migrate(c)
    }

    /// The schema version this cab writes.
    public static var schemaVersion: Int { PostgresSchema.latestVersion }

    /// Runs `body` in a transaction on a pooled connection, retrying serialization failures and deadlocks.
    func write<T>(_ body: (PostgresConnection) throws -> T) throws -> T {
        try pool.withConnection { c in try c.transaction(body) }
    }

    /// Runs `body` on a pooled connection outside an explicit transaction.
    func read<T>(_ body: (PostgresConnection) throws -> T) throws -> T {
        try pool.withConnection(body)
    }

    /// The shard (0-63) of a booking id, stored with every booking so dispatch tables can be distributed by it
    /// (FNV-1a of the id's bytes).
    static func shard(of id: BookingID) -> Int {
        var hash: UInt32 = 2_166_136_261
        for byte in id.rawValue.utf8 {
            hash ^= UInt32(byte)
            hash = hash &* 16_777_619
        }
        return Int(hash % 64)
    }
}
