import CabCore
import CabPostgres

extension PostgresStore {
    /// The states a trip can be left in when the server stops: not yet terminal (as `SQLiteStore`'s).
    public static var openTripStates: [TripState] { SQLiteStore.openTripStates }

    /// Every booking not in a terminal state, oldest first (start-up recovery reads them all, unpaged).
    /// - Complexity: one scan of the open states in `bookings_by_status`.
    public func openTrips() throws -> [Booking] {
        try read { c in
            try c.query(
                "SELECT \(BookingRow.columns) FROM bookings WHERE status = ANY($1::text[]) ORDER BY created_ms, id",
                [Self.textArray(Self.openTripStates.map(\.rawValue))]
            ).rows.map { try BookingRow.decode(PostgresStoreRow(row: $0)) }
        }
    }

    /// The newest `limit` bookings not in a terminal state, newest first (the dispatcher's board).
    public func newestOpenTrips(limit: Int) throws -> [Booking] {
        try read { c in
            try c.query(
                "SELECT \(BookingRow.columns) FROM bookings WHERE status = ANY($1::text[]) "
                    + "ORDER BY created_ms DESC, id DESC LIMIT $2",
                [Self.textArray(Self.openTripStates.map(\.rawValue)), max(0, limit)] as [any PostgresBindable]
            ).rows.map { try BookingRow.decode(PostgresStoreRow(row: $0)) }
        }
    }

    /// Records durably that `driver` declined `booking` at `time` (a repeat is harmless).
    public func recordDecline(of booking: BookingID, by driver: DriverID, at time: Instant) throws {
        try write { c in try Self.insertDecline(of: booking, by: driver, at: time, on: c) }
    }

    /// Stores a decline (once) on `c`.
    static func insertDecline(of booking: BookingID, by driver: DriverID, at time: Instant, on c: PostgresConnection)
        throws
    {
        try c.query(
            "INSERT INTO dispatch_declines (booking_id, driver_id, shard, at_ms) VALUES ($1, $2, $3, $4) "
                + "ON CONFLICT DO NOTHING",
            [booking.rawValue, driver.rawValue, Self.shard(of: booking), time.millisecondsSinceEpoch]
                as [any PostgresBindable])
    }

    /// The drivers who declined `booking`, for dispatch resumed after a restart.
    public func declines(of booking: BookingID) throws -> Set<DriverID> {
        try read { c in
            Set(
                try c.query("SELECT driver_id FROM dispatch_declines WHERE booking_id = $1", [booking.rawValue]).rows
                    .compactMap { $0.string(0).map(DriverID.init(uncheckedRawValue:)) })
        }
    }

    /// Stores the hash of an extra secret for `driver` (a tracking device's key), durably; it resolves to the
    /// driver through `principal(forTokenHash:)` and is revoked with `revokeToken`.
    public func addCredential(_ hash: TokenHash, for driver: DriverID, at time: Instant) throws {
        try write { c in try Self.insertToken(hash, for: .driver(driver), at: time, on: c) }
    }

    /// The server secret `name`, made by `make` and stored durably the first time it is asked for; every later
    /// call (on any node sharing the database) gets the same bytes. Nodes racing to make it all end with the
    /// one stored first.
    public func serverSecret(
        named name: String, at time: Instant, make: @escaping @Sendable () throws -> [UInt8]
    ) throws -> [UInt8] {
        func stored(_ c: PostgresConnection) throws -> [UInt8]? {
            try c.query("SELECT value FROM server_secrets WHERE name = $1", [name]).first?.bytes(0)
        }
        if let value = try read(stored) { return value }
        let fresh = try make()
        return try write { c in
            try c.query(
                "INSERT INTO server_secrets (name, value, created_ms) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING",
                [name, PostgresValue.bytes(fresh), time.millisecondsSinceEpoch] as [any PostgresBindable])
            // ON CONFLICT DO NOTHING kept an earlier value if there was one: read back what is stored.
            return try stored(c) ?? fresh
        }
    }

    /// A PostgreSQL array literal (`{"a","b"}`) of `values`, sent as one text parameter (never spliced into SQL).
    static func textArray(_ values: [String]) -> String {
        let quoted = values.map { value -> String in
            var escaped = ""
            for ch in value {
                if ch == "\"" || ch == "\\" { escaped.append("\\") }
                escaped.append(ch)
            }
            return "\"" + escaped + "\""
        }
        return "{" + quoted.joined(separator: ",") + "}"
    }
}
