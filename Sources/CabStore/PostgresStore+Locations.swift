import CabCore
import CabPostgres

extension PostgresStore: LocationHistoryRepository {
    /// Appends `records`, 1,000 rows per statement (the columns sent as seven array parameters and unrolled by
    /// `unnest`, one round trip each); a (driver, time) already stored is skipped (`ON CONFLICT DO NOTHING`).
    /// Returns how many were new. Rows go to their day's partition (made ahead; `maintainLocationPartitions`).
    public func append(_ records: [DriverLocationRecord]) throws -> Int {
        guard !records.isEmpty else { return 0 }
        try maintainLocationPartitionsIfNewDay()
        var added = 0
        for start in stride(from: 0, to: records.count, by: 1_000) {
            let chunk = records[start..<min(start + 1_000, records.count)]
            func numbers(_ value: (DriverLocationRecord) -> Double?) -> String {
                "{" + chunk.map { value($0).map { "\($0)" } ?? "NULL" }.joined(separator: ",") + "}"
            }
            let columns: [any PostgresBindable] = [
                Self.textArray(chunk.map(\.driverID.rawValue)),
                "{" + chunk.map { String($0.time.millisecondsSinceEpoch) }.joined(separator: ",") + "}",
                numbers { $0.coordinate.latitude }, numbers { $0.coordinate.longitude }, numbers(\.accuracyMeters),
                numbers(\.speedMetersPerSecond), numbers(\.headingDegrees),
            ]
            // One statement: it stands or falls whole, so running it again after a dead connection adds nothing twice.
            added += try read { c in
                try c.query(
                    "INSERT INTO driver_locations (driver_id, time_ms, lat, lon, accuracy_m, speed_mps, heading_deg) "
                        + "SELECT * FROM unnest($1::text[], $2::bigint[], $3::float8[], $4::float8[], $5::float8[], "
                        + "$6::float8[], $7::float8[]) ON CONFLICT DO NOTHING",
                    columns
                ).affectedRows
            }
        }
        return added
    }

    /// A driver's positions with `from <= time < to`, oldest first, at most `limit`.
    public func trail(of driver: DriverID, from: Instant, to: Instant, limit: Int) throws -> [DriverLocationRecord] {
        try read { c in
            try c.query(
                "SELECT time_ms, lat, lon, accuracy_m, speed_mps, heading_deg FROM driver_locations "
                    + "WHERE driver_id = $1 AND time_ms >= $2 AND time_ms < $3 ORDER BY time_ms LIMIT $4",
                [driver.rawValue, from.millisecondsSinceEpoch, to.millisecondsSinceEpoch, max(0, limit)]
                    as [any PostgresBindable]
            ).rows.map { SQLiteStore.locationRecord(PostgresStoreRow(row: $0), of: driver) }
        }
    }

    /// A driver's newest stored position (one step down the primary key of each partition).
    public func newestLocation(of driver: DriverID) throws -> DriverLocationRecord? {
        try read { c in
            try c.query(
                "SELECT time_ms, lat, lon, accuracy_m, speed_mps, heading_deg FROM driver_locations "
                    + "WHERE driver_id = $1 ORDER BY time_ms DESC LIMIT 1",
                [driver.rawValue]
            ).first.map { SQLiteStore.locationRecord(PostgresStoreRow(row: $0), of: driver) }
        }
    }
}
