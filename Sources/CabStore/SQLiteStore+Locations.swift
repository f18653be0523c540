import CabCore
import CabGeo
import CabSQLite

extension SQLiteStore: LocationHistoryRepository {
    /// Appends `records` in one durable transaction; a (driver, time) already stored is skipped.
    public func append(_ records: [DriverLocationRecord]) throws -> Int {
        guard !records.isEmpty else { return 0 }
        return try writer.write { c in
            var added = 0
            for r in records {
                added += try c.run(
                    "INSERT OR IGNORE INTO driver_locations "
                        + "(driver_id, time_ms, lat, lon, accuracy_m, speed_mps, heading_deg) VALUES (?, ?, ?, ?, ?, ?, ?)",
                    [
                        r.driverID.rawValue, r.time.millisecondsSinceEpoch, r.coordinate.latitude,
                        r.coordinate.longitude, r.accuracyMeters, r.speedMetersPerSecond, r.headingDegrees,
                    ])
            }
            return added
        }
    }

    /// A driver's newest stored position (one step down the primary key).
    public func newestLocation(of driver: DriverID) throws -> DriverLocationRecord? {
        try readers.read { c in
            try c.first(
                "SELECT time_ms, lat, lon, accuracy_m, speed_mps, heading_deg FROM driver_locations "
                    + "WHERE driver_id = ? ORDER BY time_ms DESC LIMIT 1", [driver.rawValue]
            ) { r in Self.locationRecord(r, of: driver) }
        }
    }

    /// A driver's positions with `from <= time < to`, oldest first, at most `limit`.
    public func trail(of driver: DriverID, from: Instant, to: Instant, limit: Int) throws -> [DriverLocationRecord] {
        try readers.read { c in
            try c.query(
                "SELECT time_ms, lat, lon, accuracy_m, speed_mps, heading_deg FROM driver_locations "
                    + "WHERE driver_id = ? AND time_ms >= ? AND time_ms < ? ORDER BY time_ms LIMIT ?",
                [driver.rawValue, from.millisecondsSinceEpoch, to.millisecondsSinceEpoch, max(0, limit)]
            ) { r in Self.locationRecord(r, of: driver) }
        }
    }

    /// A row of `SELECT time_ms, lat, lon, accuracy_m, speed_mps, heading_deg FROM driver_locations`.
    static func locationRecord(_ r: some StoreRow, of driver: DriverID) -> DriverLocationRecord {
        DriverLocationRecord(
            driverID: driver, time: Instant(millisecondsSinceEpoch: r.int64(0)),
            coordinate: Coordinate(latitude: r.double(1), longitude: r.double(2)),
            accuracyMeters: r.optionalDouble(3), speedMetersPerSecond: r.optionalDouble(4),
            headingDegrees: r.optionalDouble(5))
    }
}
