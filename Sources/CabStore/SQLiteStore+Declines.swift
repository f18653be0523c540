import CabCore
import CabSQLite

extension SQLiteStore: DispatchStateRepository {
    /// Records durably that `driver` declined `booking` at `time` (a repeat is harmless).
    public func recordDecline(of booking: BookingID, by driver: DriverID, at time: Instant) throws {
        _ = try writer.write { c in
            try c.run(
                "INSERT OR IGNORE INTO dispatch_declines (booking_id, driver_id, at_ms) VALUES (?, ?, ?)",
                [booking.rawValue, driver.rawValue, time.millisecondsSinceEpoch])
        }
    }

    /// The drivers who declined `booking`, for dispatch resumed after a restart.
    public func declines(of booking: BookingID) throws -> Set<DriverID> {
        try readers.read { c in
            Set(
                try c.query("SELECT driver_id FROM dispatch_declines WHERE booking_id = ?", [booking.rawValue]) { row in
                    DriverID(uncheckedRawValue: row.string(0))
                })
        }
    }
}
