import CabCore
import CabSQLite

/// SwiftCab's store on one SQLite file: accounts, bookings with their history, idempotency keys and driver
/// trails. Implements `AccountRepository`, `BookingRepository` and `LocationHistoryRepository`.
///
/// Durability: WAL, `synchronous=FULL`, foreign keys on. Every write goes through one `GroupCommitWriter`
/// thread that batches concurrent requests into one transaction and answers only after its fsync; reads use
/// a pool of read-only connections. Checkpoints run on a thread of their own, never inside a commit. Methods block: call them from request threads, not the cooperative pool.
public final class SQLiteStore: Sendable {
    /// How to open the store.
    public struct Configuration: Sendable {
        /// Read connections (parallel readers).
        public var readers: Int
        /// Most writes committed in one transaction.
        public var maximumBatch: Int
        /// `synchronous=FULL` (true, durable on acknowledgement) or `NORMAL` (false; for benchmarks only).
        public var durable: Bool
        /// Resolved tokens kept in memory (0 turns the cache off).
        public var tokenCacheCapacity: Int
        /// How long a resolved token is trusted without reading the store again, in milliseconds: the longest a
        /// token revoked by another process keeps working here (revocations through this store apply at once).
        public var tokenCacheMilliseconds: Int64
        /// Monotonic milliseconds for the token cache (injected by tests).
        public var monotonicMilliseconds: @Sendable () -> Int64
        /// WAL length in frames (a 4 KiB page each) past which the writer waits, between two batches, for the
        /// checkpoint to catch up so that the next batch restarts the WAL: 16,384 frames, 64 MiB. Larger means
        /// fewer such pauses and a longer WAL to replay after a crash.
        public var walFrameLimit: Int
        /// The time health reports carry (injected by tests).
        public var wallClock: @Sendable () -> Instant

        /// Creates a configuration.
        public init(
            readers: Int = 4, maximumBatch: Int = 256, durable: Bool = true, tokenCacheCapacity: Int = 100_000,
            tokenCacheMilliseconds: Int64 = 30_000,
            monotonicMilliseconds: @escaping @Sendable () -> Int64 = Configuration.systemMonotonicMilliseconds,
            walFrameLimit: Int = 16_384,
            wallClock: @escaping @Sendable () -> Instant = Configuration.systemWallClock
        ) {
            self.wallClock = wallClock
            precondition(readers > 0 && maximumBatch > 0, "need at least one reader and a batch of one")
            precondition(
                tokenCacheCapacity >= 0 && tokenCacheMilliseconds >= 0, "token cache settings are not negative")
            precondition(walFrameLimit > 0, "the WAL limit is at least one frame")
            self.readers = readers
            self.maximumBatch = maximumBatch
            self.durable = durable
            self.tokenCacheCapacity = tokenCacheCapacity
            self.tokenCacheMilliseconds = tokenCacheMilliseconds
            self.monotonicMilliseconds = monotonicMilliseconds
            self.walFrameLimit = walFrameLimit
        }

        /// Milliseconds on the system's monotonic clock (`ContinuousClock`) since an arbitrary start.
        public static let systemMonotonicMilliseconds: @Sendable () -> Int64 = {
            let start = ContinuousClock.now
            return { Int64((ContinuousClock.now - start) / .milliseconds(1)) }
        }()
    }

    /// The file.
    public let path: String
    let writer: GroupCommitWriter
    let readers: ReaderPool
    let tokens: TokenCache
    /// What the store's failures say about it (`/healthz`, `/readyz`, `/metrics`, the log).
    public let health: StoreHealth

    /// The schema version this binary writes.
    public static var schemaVersion: Int { Migrations.latestVersion }

    /// Opens (creating if needed) and migrates the store at `path`; throws `.schemaTooNew` for a file written
    /// by a newer SwiftCab, `.notAStore` for another application's SQLite file.
    public init(path: String, configuration: Configuration = Configuration()) throws {
        self.path = path
        let health = StoreHealth(path: path, now: configuration.wallClock, freeBytes: { Self.freeBytes(besides: path) })
        self.health = health
        try Self.refuseEmptiedStore(at: path)
        tokens = TokenCache(
            capacity: configuration.tokenCacheCapacity, lifetimeMilliseconds: configuration.tokenCacheMilliseconds,
            now: configuration.monotonicMilliseconds)
        do {
            let db = try SQLiteDatabase(path: path)
            try db.execute("PRAGMA journal_mode = WAL")
            try db.execute(configuration.durable ? "PRAGMA synchronous = FULL" : "PRAGMA synchronous = NORMAL")
            try db.execute("PRAGMA foreign_keys = ON")
            // The writer touches the history's index pages all over the table (every driver moves): keep up to
            // 64 MiB of them cached instead of re-reading evicted pages from the OS on every batch.
            try db.execute("PRAGMA cache_size = -65536")
            // Every job of a batch runs in its own SAVEPOINT, whose undo records (the statement journal) SQLite
            // spills to a temporary file past 64 KiB: four file writes for every WAL write under load. In memory
            // they cost nothing durable (a batch that fails is rolled back whole).
            try db.execute("PRAGMA temp_store = MEMORY")
            // Checkpoints grow the file; in 8 MiB steps its size changes rarely, and an fsync of the WAL does not
            // wait for the file system to journal a new size and blocks of the database file every time.
            try db.setChunkSize(8 << 20)
            try Migrations.migrate(db, path: path)
            try db.execute("PRAGMA wal_autocheckpoint = 0")  // the checkpointer thread does it, off the commit path
            let checkpointDB = try SQLiteDatabase(path: path)
            try checkpointDB.execute(
                configuration.durable ? "PRAGMA synchronous = FULL" : "PRAGMA synchronous = NORMAL")
            var pool: [Connection] = []
            for _ in 0..<configuration.readers {
                let reader = try SQLiteDatabase(path: path)
                try reader.execute("PRAGMA query_only = ON")
                pool.append(Connection(reader))
            }
            readers = ReaderPool(connections: pool, health: health)
            writer = GroupCommitWriter(
                connection: Connection(db), maximumBatch: configuration.maximumBatch,
                checkpointer: Checkpointer(connection: Connection(checkpointDB)),
                walFrameLimit: configuration.walFrameLimit,
                health: health)
        } catch {
            throw StoreError.translating(error)
        }
        try Self.markHoldsData(at: path)
    }

    /// Finishes queued writes and stops the writer; later writes throw `.closed`. Also run on deinit.
    public func close() { writer.close() }

    deinit { writer.close() }

    /// Writes committed so far and the transactions they took (group commit's effect: jobs / batches).
    public var writeStatistics: (batches: Int, writes: Int) {
        let s = writer.statistics
        return (s.batches, s.jobs)
    }
}
