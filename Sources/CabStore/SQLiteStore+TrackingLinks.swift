import CabCore
import CabSQLite

extension SQLiteStore: TrackingLinkRepository {
    /// Stores a tracking link durably (`tracking_links`).
    public func createTrackingLink(_ token: String, for booking: BookingID, at time: Instant) throws {
        _ = try writer.write { c in
            try c.run(
                "INSERT INTO tracking_links (token, booking_id, created_ms) VALUES (?, ?, ?)",
                [token, booking.rawValue, time.millisecondsSinceEpoch])
        }
    }

    /// The booking a tracking link shows; nil for an unknown token.
    public func trackingLinkBooking(_ token: String) throws -> BookingID? {
        try readers.read { c in
            try c.query("SELECT booking_id FROM tracking_links WHERE token = ?", [token]) { row in
                BookingID(uncheckedRawValue: row.string(0))
            }.first
        }
    }
}
