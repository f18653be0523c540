import CabCore
import CabPostgres

extension PostgresStore: LocationHistoryRepository {
    /// Appends `records` in one transaction sent as one pipelined round trip per 500 rows; a (driver, time)
    /// already stored is skipped (`ON CONFLICT DO NOTHING`). Returns how many were new. Rows go to their day's
    /// partition (made ahead; `maintainLocationPartitions`).
    public func append(_ records: [DriverLocationRecord]) throws -> Int {
        guard !records.isEmpty else { return 0 }
        try maintainLocationPartitionsIfNewDay()
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
            // A chunk stands or falls whole, so running it again after a dead connection adds nothing twice.
            added += try read { c in
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
