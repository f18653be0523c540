import CabSQLite

/// The schema, as an ordered list of migrations; the file's `PRAGMA user_version` says how many have run.
///
/// Add a migration by appending to `all` (never edit a shipped one). A file whose version is higher than
/// `latestVersion` was written by a newer `cab` and is refused rather than misread.
enum Migrations {
    /// `PRAGMA application_id` of a SwiftCab store ("CABS").
    static let applicationID: Int64 = 0x4341_4253

    struct Migration {
        let version: Int
        let sql: String
    }

    static let all: [Migration] = [
        Migration(version: 1, sql: schema1),
        // The route priced at booking, so a booking shows the route it was priced on, even after a map re-import.
        Migration(version: 2, sql: "ALTER TABLE bookings ADD COLUMN route_polyline TEXT"),
        // Drivers who declined a trip, so that dispatch resumed after a restart does not ask them again.
        Migration(
            version: 3,
            sql: """
                CREATE TABLE dispatch_declines (
                    booking_id TEXT NOT NULL REFERENCES bookings(id),
                    driver_id TEXT NOT NULL REFERENCES drivers(id),
                    at_ms INTEGER NOT NULL,
                    PRIMARY KEY (booking_id, driver_id)
                ) STRICT, WITHOUT ROWID;
                """),
        // Only bookings with a driver in the driver index: a new booking (no driver yet) then adds no entry to
        // it, one index page less in every commit of new bookings. Lookups are `driver_id = ?`, which the
        // partial index serves.
        Migration(
            version: 4,
            sql: """
                DROP INDEX bookings_by_driver;
                CREATE INDEX bookings_by_driver ON bookings (driver_id, created_ms, id) WHERE driver_id IS NOT NULL;
                """),
        // The journey of issue 13: re-dispatches and late pickups, the receipt's figures and trail, the rider's
        // rating (on the booking: one per trip; drivers' averages read their bookings through the driver index).
        Migration(
            version: 5,
            sql: """
                ALTER TABLE bookings ADD COLUMN redispatch_count INTEGER NOT NULL DEFAULT 0;
                ALTER TABLE bookings ADD COLUMN pickup_overdue_ms INTEGER;
                ALTER TABLE bookings ADD COLUMN fare_distance_m INTEGER;
                ALTER TABLE bookings ADD COLUMN fare_duration_s INTEGER;
                ALTER TABLE bookings ADD COLUMN fare_basis TEXT;
                ALTER TABLE bookings ADD COLUMN trail_polyline TEXT;
                ALTER TABLE bookings ADD COLUMN rating_stars INTEGER CHECK (rating_stars BETWEEN 1 AND 5);
                ALTER TABLE bookings ADD COLUMN rating_comment TEXT;
                ALTER TABLE bookings ADD COLUMN rated_ms INTEGER;
                """),
        // Saved places per rider ("Home", "Work"), unique per rider by the label in lower case (issue 21).
        Migration(
            version: 6,
            sql: """
                CREATE TABLE saved_places (
                    rider_id TEXT NOT NULL REFERENCES riders(id),
                    label_key TEXT NOT NULL,
                    label TEXT NOT NULL,
                    name TEXT NOT NULL,
                    lat REAL NOT NULL,
                    lon REAL NOT NULL,
                    address TEXT NOT NULL,
                    updated_ms INTEGER NOT NULL,
                    PRIMARY KEY (rider_id, label_key)
                ) STRICT, WITHOUT ROWID;
                """),
        // Keys the server makes once and keeps (the key that signs riders' QR codes), by name.
        Migration(
            version: 7,
            sql:
                "CREATE TABLE server_secrets (name TEXT PRIMARY KEY, value BLOB NOT NULL, created_ms INTEGER NOT NULL) STRICT"
        ),
        // Tracking links a rider shares, so that a link keeps working across a restart (issue 14).
        Migration(
            version: 8,
            sql: """
                CREATE TABLE tracking_links (
                    token TEXT PRIMARY KEY,
                    booking_id TEXT NOT NULL REFERENCES bookings(id),
                    created_ms INTEGER NOT NULL
                ) STRICT, WITHOUT ROWID;
                """),
        // The trip's version (`Booking.version`, issue 17): its transitions so far, the booking counted; the
        // compare-and-set of a transition checks it. Existing trips get their history's length.
        Migration(
            version: 9,
            sql: """
                ALTER TABLE bookings ADD COLUMN version INTEGER NOT NULL DEFAULT 1;
                UPDATE bookings SET version =
                    max(1, (SELECT count(*) FROM booking_history h WHERE h.booking_id = bookings.id));
                """),
    ]

    static var latestVersion: Int { all.last?.version ?? 0 }

    /// Brings the database up to `latestVersion`, each migration in its own transaction.
    static func migrate(_ db: SQLiteDatabase, path: String) throws {
        let version = try db.query("PRAGMA user_version") { $0.int(0) }.first ?? 0
        let application = try db.query("PRAGMA application_id") { $0.int64(0) }.first ?? 0
        guard application == 0 || application == applicationID else {
            throw StoreError(.notAStore, "\(path) is a SQLite file of another application; give a SwiftCab data file.")
        }
        guard version <= latestVersion else {
            throw StoreError(
                .schemaTooNew,
                "\(path) has schema version \(version), but this cab knows only up to \(latestVersion): "
                    + "it was written by a newer SwiftCab. Upgrade cab, or use another data directory.")
        }
        for migration in all where migration.version > version {
            try db.transaction {
                // Re-read inside the write lock: another process opening the same file may have migrated first.
                let current = try db.query("PRAGMA user_version") { $0.int(0) }.first ?? 0
                guard current < migration.version else { return }
                try db.execute(migration.sql)
                // PRAGMAs take no bound parameters; both values are integer constants from this file.
                try db.execute("PRAGMA user_version = \(migration.version)")
                try db.execute("PRAGMA application_id = \(applicationID)")
            }
        }
    }

    static let schema1 = """
        CREATE TABLE riders (
            id TEXT PRIMARY KEY,
            name TEXT NOT NULL,
            created_ms INTEGER NOT NULL
        ) STRICT;
        CREATE TABLE drivers (
            id TEXT PRIMARY KEY,
            name TEXT NOT NULL,
            vehicle TEXT NOT NULL,
            plate TEXT NOT NULL,
            vehicle_type TEXT NOT NULL,
            created_ms INTEGER NOT NULL
        ) STRICT;
        CREATE TABLE dispatchers (
            id TEXT PRIMARY KEY,
            name TEXT NOT NULL,
            created_ms INTEGER NOT NULL
        ) STRICT;
        CREATE TABLE tokens (
            hash BLOB PRIMARY KEY CHECK (length(hash) = 32),
            rider_id TEXT REFERENCES riders(id),
            driver_id TEXT REFERENCES drivers(id),
            dispatcher_id TEXT REFERENCES dispatchers(id),
            created_ms INTEGER NOT NULL,
            revoked_ms INTEGER,
            CHECK ((rider_id IS NOT NULL) + (driver_id IS NOT NULL) + (dispatcher_id IS NOT NULL) = 1)
        ) STRICT, WITHOUT ROWID;
        CREATE TABLE bookings (
            id TEXT PRIMARY KEY,
            rider_id TEXT NOT NULL REFERENCES riders(id),
            pickup_lat REAL NOT NULL,
            pickup_lon REAL NOT NULL,
            pickup_name TEXT,
            dropoff_lat REAL NOT NULL,
            dropoff_lon REAL NOT NULL,
            dropoff_name TEXT,
            route_distance_m INTEGER NOT NULL,
            route_duration_s INTEGER NOT NULL,
            currency TEXT NOT NULL,
            fare_estimate_minor INTEGER NOT NULL,
            vehicle_type TEXT,
            status TEXT NOT NULL,
            created_ms INTEGER NOT NULL,
            status_changed_ms INTEGER NOT NULL,
            pin TEXT NOT NULL,
            promised_pickup_ms INTEGER,
            driver_id TEXT REFERENCES drivers(id),
            accepted_ms INTEGER,
            arrived_ms INTEGER,
            picked_up_ms INTEGER,
            completed_ms INTEGER,
            final_fare_minor INTEGER,
            cancel_role TEXT,
            cancel_actor_id TEXT,
            cancel_ms INTEGER,
            cancel_reason TEXT,
            cancel_fee_minor INTEGER
        ) STRICT;
        CREATE INDEX bookings_by_rider ON bookings (rider_id, created_ms, id);
        CREATE INDEX bookings_by_driver ON bookings (driver_id, created_ms, id);
        CREATE INDEX bookings_by_status ON bookings (status, created_ms, id);
        CREATE INDEX bookings_by_time ON bookings (created_ms, id);
        CREATE TABLE booking_history (
            seq INTEGER PRIMARY KEY,
            booking_id TEXT NOT NULL REFERENCES bookings(id),
            from_status TEXT,
            to_status TEXT NOT NULL,
            event TEXT NOT NULL,
            actor_role TEXT NOT NULL,
            actor_id TEXT,
            at_ms INTEGER NOT NULL,
            reason TEXT
        ) STRICT;
        CREATE INDEX booking_history_by_booking ON booking_history (booking_id, seq);
        CREATE TABLE idempotency_keys (
            rider_id TEXT NOT NULL REFERENCES riders(id),
            key TEXT NOT NULL,
            fingerprint TEXT NOT NULL,
            booking_id TEXT NOT NULL REFERENCES bookings(id),
            created_ms INTEGER NOT NULL,
            PRIMARY KEY (rider_id, key)
        ) STRICT, WITHOUT ROWID;
        CREATE TABLE driver_locations (
            driver_id TEXT NOT NULL REFERENCES drivers(id),
            time_ms INTEGER NOT NULL,
            lat REAL NOT NULL,
            lon REAL NOT NULL,
            accuracy_m REAL,
            speed_mps REAL,
            heading_deg REAL,
            PRIMARY KEY (driver_id, time_ms)
        ) STRICT, WITHOUT ROWID;
        """
}
