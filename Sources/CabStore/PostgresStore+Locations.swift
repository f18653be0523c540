import CabCore
import CabPostgres

extension PostgresStore: LocationHistoryRepository {
    /// Appends `records` in one transaction sent as one pipelined round trip per 500 rows; a (driver, time)
    /// already stored is skipped (`ON CONFLICT DO NOTHING`). Returns how many were new.
    public func append(_ records: [DriverLocationRecord]) throws -> Int {
        guard !records.isEmpty else { return 0 }
        var added = 0
        for chunk in stride(from: 0, to: records.count, by: 500).map({ records[$0..<min($0 + 500, records.count)] }) {
            let statements = chunk.map { r in
                PostgresStatement(
                    "INSERT INTO driver_locations (driver_id, time_ms, lat, lon, accuracy_m, speed_mps, heading_deg) "
                        + "VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT DO NOTHING",
                    [
                        r.driverID.rawValue, r.time.millisecondsSinceEpoch, r.coordinate.latitude, r.coordinate.longitude,
                        r.accuracyMeters, r.speedMetersPerSecond, r.headingDegrees,
                    ] as [any PostgresBindable])
            }
            added += try pool.withConnection { c in
                try c.pipeline(statements, transaction: true).reduce(0) { $0 + $1.affectedRows }
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
                [driver.rawValue, from.millisecondsSinceEpoch, to.millisecondsSinceEpoch, limit] as [any PostgresBindable]
            ).rows.map { SQLiteStore.locationRecord(PostgresStoreRow(row: $0), of: driver) }
        }
    }
}
