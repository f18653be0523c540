import CabPostgres

/// The PostgreSQL schema, as an ordered list of forward-only migrations recorded in `cab_schema`.
///
/// The same tables and columns as the SQLite schema (`Migrations`), in PostgreSQL's types. Only what the
/// distributed engines that speak PostgreSQL's protocol also have: no LISTEN/NOTIFY, no advisory locks, no
/// `LOCK TABLE`, no sequences (history rows are ordered by an id made of time and a per-booking step, not a
/// serial). Two nodes starting at once do not both migrate: each migration runs in a transaction that first
/// locks the one row of `cab_schema_lock` (`SELECT ... FOR UPDATE`) and re-reads the version under it.
enum PostgresSchema {
    struct Migration {
        let version: Int
        let sql: String
    }

    static let all: [Migration] = [
        Migration(version: 1, sql: v1),
        Migration(version: 2, sql: v2),
        Migration(version: 3, sql: v3),
        Migration(version: 4, sql: v4),
    ]

    static var latestVersion: Int { all.last?.version ?? 0 }

    /// Brings the database up to `version` (`latestVersion` unless a test stops earlier); returns the migrations
    /// applied by this call.
    @discardableResult
    static func migrate(_ c: PostgresConnection, through version: Int = latestVersion) throws -> [Int] {
        try bootstrap(c)
        var applied: [Int] = []
        for migration in all where migration.version <= version {
            let ran = try c.transaction { tx -> Bool in
                try tx.query("SELECT id FROM cab_schema_lock WHERE id = $1 FOR UPDATE", [1])
                let current = try tx.query("SELECT coalesce(max(version), 0) FROM cab_schema").first?.int(0) ?? 0
                guard current < migration.version else { return false }
                try tx.execute(migration.sql)
                try tx.query("INSERT INTO cab_schema (version) VALUES ($1)", [migration.version])
                return true
            }
            if ran { applied.append(migration.version) }
        }
        return applied
    }

    /// The schema version the database is at (0 for an empty database).
    static func version(_ c: PostgresConnection) throws -> Int {
        let exists = try c.query("SELECT to_regclass($1) IS NOT NULL", ["cab_schema"]).first?.bool(0) ?? false
        guard exists else { return 0 }
        return try c.query("SELECT coalesce(max(version), 0) FROM cab_schema").first?.int(0) ?? 0
    }

    /// The two bookkeeping tables; racing `CREATE TABLE IF NOT EXISTS` can fail with a unique violation on the
    /// catalogue or a duplicate table or type in PostgreSQL, which means the other node made them: that is fine.
    private static func bootstrap(_ c: PostgresConnection) throws {
        do {
            try c.execute(
                """
                CREATE TABLE IF NOT EXISTS cab_schema (
                    version integer PRIMARY KEY,
                    applied_at timestamptz NOT NULL DEFAULT now()
                );
                CREATE TABLE IF NOT EXISTS cab_schema_lock (id integer PRIMARY KEY);
                INSERT INTO cab_schema_lock (id) VALUES (1) ON CONFLICT DO NOTHING;
                """)
        } catch {
            // 23505 on the catalogue, 42P07 (duplicate table) or 42710 (duplicate object: the table's row type)
            // all mean the other node's CREATE committed first.
            guard [.uniqueViolation, .init("42P07"), .init("42710")].contains(error.code) else { throw error }
            try c.execute("INSERT INTO cab_schema_lock (id) VALUES (1) ON CONFLICT DO NOTHING")
        }
        let tooNew = try c.query("SELECT coalesce(max(version), 0) FROM cab_schema").first?.int(0) ?? 0
        guard tooNew <= latestVersion else {
            throw StoreError(
                .schemaTooNew,
                "The PostgreSQL database has schema version \(tooNew), but this cab knows only up to \(latestVersion): "
                    + "it was written by a newer SwiftCab. Upgrade cab, or use another database.")
        }
    }

    /// Version 1: what SQLite's versions 1 to 7 hold for accounts, bookings, their history, idempotency keys
    /// and location history. Every dispatch-related table carries `shard` (0-63, from the booking id) so it can
    /// be distributed by it later.
    static let v1 = """
        CREATE TABLE riders (
            id text PRIMARY KEY,
            name text NOT NULL,
            created_ms bigint NOT NULL
        );
        CREATE TABLE drivers (
            id text PRIMARY KEY,
            name text NOT NULL,
            vehicle text NOT NULL,
            plate text NOT NULL,
            vehicle_type text NOT NULL,
            created_ms bigint NOT NULL
        );
        CREATE TABLE dispatchers (
            id text PRIMARY KEY,
            name text NOT NULL,
            created_ms bigint NOT NULL
        );
        CREATE TABLE tokens (
            hash bytea PRIMARY KEY CHECK (length(hash) = 32),
            rider_id text REFERENCES riders(id),
            driver_id text REFERENCES drivers(id),
            dispatcher_id text REFERENCES dispatchers(id),
            created_ms bigint NOT NULL,
            revoked_ms bigint,
            CHECK ((rider_id IS NOT NULL)::int + (driver_id IS NOT NULL)::int + (dispatcher_id IS NOT NULL)::int = 1)
        );
        CREATE TABLE bookings (
            id text PRIMARY KEY,
            shard smallint NOT NULL,
            rider_id text NOT NULL REFERENCES riders(id),
            pickup_lat double precision NOT NULL,
            pickup_lon double precision NOT NULL,
            pickup_name text,
            dropoff_lat double precision NOT NULL,
            dropoff_lon double precision NOT NULL,
            dropoff_name text,
            route_distance_m bigint NOT NULL,
            route_duration_s bigint NOT NULL,
            currency text NOT NULL,
            fare_estimate_minor bigint NOT NULL,
            vehicle_type text,
            status text NOT NULL,
            created_ms bigint NOT NULL,
            status_changed_ms bigint NOT NULL,
            pin text NOT NULL,
            promised_pickup_ms bigint,
            driver_id text REFERENCES drivers(id),
            accepted_ms bigint,
            arrived_ms bigint,
            picked_up_ms bigint,
            completed_ms bigint,
            final_fare_minor bigint,
            cancel_role text,
            cancel_actor_id text,
            cancel_ms bigint,
            cancel_reason text,
            cancel_fee_minor bigint,
            route_polyline text,
            redispatch_count bigint NOT NULL DEFAULT 0,
            pickup_overdue_ms bigint,
            fare_distance_m bigint,
            fare_duration_s bigint,
            fare_basis text,
            trail_polyline text,
            rating_stars bigint CHECK (rating_stars BETWEEN 1 AND 5),
            rating_comment text,
            rated_ms bigint
        );
        CREATE INDEX bookings_by_rider ON bookings (rider_id, created_ms, id);
        CREATE INDEX bookings_by_driver ON bookings (driver_id, created_ms, id) WHERE driver_id IS NOT NULL;
        CREATE INDEX bookings_by_status ON bookings (status, created_ms, id);
        CREATE INDEX bookings_by_time ON bookings (created_ms, id);
        CREATE UNIQUE INDEX one_open_trip_per_driver ON bookings (driver_id)
            WHERE status IN ('accepted', 'arriving', 'arrived', 'in_progress');
        CREATE TABLE booking_history (
            booking_id text NOT NULL REFERENCES bookings(id),
            step integer NOT NULL,
            from_status text,
            to_status text NOT NULL,
            event text NOT NULL,
            actor_role text NOT NULL,
            actor_id text,
            at_ms bigint NOT NULL,
            reason text,
            PRIMARY KEY (booking_id, step)
        );
        CREATE TABLE idempotency_keys (
            rider_id text NOT NULL REFERENCES riders(id),
            key text NOT NULL,
            fingerprint text NOT NULL,
            booking_id text NOT NULL,
            created_ms bigint NOT NULL,
            PRIMARY KEY (rider_id, key)
        );
        CREATE TABLE driver_locations (
            driver_id text NOT NULL REFERENCES drivers(id),
            time_ms bigint NOT NULL,
            lat double precision NOT NULL,
            lon double precision NOT NULL,
            accuracy_m double precision,
            speed_mps double precision,
            heading_deg double precision,
            PRIMARY KEY (driver_id, time_ms)
        );
        """

    /// Version 2: the rest of what SQLite holds (declines, saved places, server secrets), durable share links,
    /// and location history partitioned by day (`PostgresStore+Partitions`): rows whose day has no partition
    /// yet land in `driver_locations_default` and move to their day's partition when it is made.
    static let v2 = """
        CREATE TABLE dispatch_declines (
            booking_id text NOT NULL REFERENCES bookings(id),
            driver_id text NOT NULL REFERENCES drivers(id),
            shard smallint NOT NULL,
            at_ms bigint NOT NULL,
            PRIMARY KEY (booking_id, driver_id)
        );
        CREATE TABLE saved_places (
            rider_id text NOT NULL REFERENCES riders(id),
            label_key text NOT NULL,
            label text NOT NULL,
            name text NOT NULL,
            lat double precision NOT NULL,
            lon double precision NOT NULL,
            address text NOT NULL,
            updated_ms bigint NOT NULL,
            PRIMARY KEY (rider_id, label_key)
        );
        CREATE TABLE server_secrets (
            name text PRIMARY KEY,
            value bytea NOT NULL,
            created_ms bigint NOT NULL
        );
        CREATE TABLE share_links (
            token text PRIMARY KEY,
            booking_id text NOT NULL REFERENCES bookings(id),
            shard smallint NOT NULL,
            created_ms bigint NOT NULL
        );
        CREATE INDEX share_links_by_booking ON share_links (booking_id, created_ms, token);
        ALTER TABLE driver_locations RENAME TO driver_locations_unpartitioned;
        ALTER TABLE driver_locations_unpartitioned RENAME CONSTRAINT driver_locations_pkey
            TO driver_locations_unpartitioned_pkey;
        CREATE TABLE driver_locations (
            driver_id text NOT NULL REFERENCES drivers(id),
            time_ms bigint NOT NULL,
            lat double precision NOT NULL,
            lon double precision NOT NULL,
            accuracy_m double precision,
            speed_mps double precision,
            heading_deg double precision,
            PRIMARY KEY (driver_id, time_ms)
        ) PARTITION BY RANGE (time_ms);
        CREATE TABLE driver_locations_default PARTITION OF driver_locations DEFAULT;
        INSERT INTO driver_locations
            SELECT driver_id, time_ms, lat, lon, accuracy_m, speed_mps, heading_deg FROM driver_locations_unpartitioned;
        DROP TABLE driver_locations_unpartitioned;
        """

    /// The trip's version (`Booking.version`, issue 17): its transitions so far, the booking counted; the
    /// compare-and-set of a transition checks it. Existing trips get their history's length.
    static let v3 = """
        ALTER TABLE bookings ADD COLUMN version integer NOT NULL DEFAULT 1;
        UPDATE bookings b SET version = greatest(1, (SELECT count(*) FROM booking_history h WHERE h.booking_id = b.id));
        """

    /// Version 4: dispatch across nodes (issue 18, docs/dispatch-ownership.md). One lease row per shard (0-63)
    /// whose fence grows on every takeover, the history of every fence granted (the invariant checker judges
    /// writes against it), the live nodes, and what a shard's owner writes under its fence: offers (a driver
    /// holds at most one open offer), trip deadlines swept by every node, and arrival alert marks. Times are
    /// the database's (`clock_timestamp()`), never a node's.
    static let v4 = """
        CREATE TABLE dispatch_shard_leases (
            shard smallint PRIMARY KEY CHECK (shard BETWEEN 0 AND 63),
            owner text,
            fence bigint NOT NULL,
            acquired_at timestamptz,
            expires_at timestamptz
        );
        INSERT INTO dispatch_shard_leases (shard, fence) SELECT s, 0 FROM generate_series(0, 63) AS s;
        CREATE TABLE dispatch_shard_fences (
            shard smallint NOT NULL,
            fence bigint NOT NULL,
            owner text NOT NULL,
            acquired_at timestamptz NOT NULL,
            PRIMARY KEY (shard, fence)
        );
        CREATE TABLE dispatch_nodes (
            node text PRIMARY KEY,
            expires_at timestamptz NOT NULL
        );
        CREATE TABLE dispatch_offers (
            booking_id text NOT NULL REFERENCES bookings(id),
            shard smallint NOT NULL,
            driver_id text NOT NULL REFERENCES drivers(id),
            batch integer NOT NULL,
            state text NOT NULL
                CHECK (state IN ('open', 'accepted', 'declined', 'expired', 'withdrawn', 'released')),
            expires_at timestamptz NOT NULL,
            fence bigint NOT NULL,
            written_at timestamptz NOT NULL,
            closed_at timestamptz,
            PRIMARY KEY (booking_id, batch, driver_id)
        );
        CREATE UNIQUE INDEX dispatch_offers_one_open_per_driver ON dispatch_offers (driver_id) WHERE state = 'open';
        CREATE TABLE dispatch_deadlines (
            booking_id text NOT NULL REFERENCES bookings(id),
            shard smallint NOT NULL,
            kind text NOT NULL
                CHECK (kind IN ('offer_timeout', 'dispatch_timeout', 'pickup_overdue', 'no_show_wait')),
            due_at timestamptz NOT NULL,
            fence bigint NOT NULL,
            written_at timestamptz NOT NULL,
            generation bigint NOT NULL,
            claimed_by text,
            claimed_until timestamptz,
            attempts integer NOT NULL DEFAULT 0,
            PRIMARY KEY (booking_id, kind)
        );
        CREATE INDEX dispatch_deadlines_by_due ON dispatch_deadlines (due_at);
        CREATE TABLE dispatch_alert_marks (
            booking_id text NOT NULL REFERENCES bookings(id),
            shard smallint NOT NULL,
            threshold_s integer NOT NULL,
            fence bigint NOT NULL,
            written_at timestamptz NOT NULL,
            PRIMARY KEY (booking_id, threshold_s)
        );
        """
}
