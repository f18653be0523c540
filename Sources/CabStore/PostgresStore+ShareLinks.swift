import CabCore
import CabPostgres

extension PostgresStore {
    /// Stores a share link `token` for `booking` made at `time`, durably (a repeat of the same token for the
    /// same booking is harmless; a token already given to another booking throws `.constraint`).
    public func createShareLink(token: String, booking: BookingID, at time: Instant) throws {
        try write { c in
            let inserted = try c.query(
                "INSERT INTO share_links (token, booking_id, shard, created_ms) VALUES ($1, $2, $3, $4) "
                    + "ON CONFLICT DO NOTHING",
                [token, booking.rawValue, Self.shard(of: booking), time.millisecondsSinceEpoch]
                    as [any PostgresBindable]
            ).affectedRows
            if inserted == 0 {
                let owner = try c.query("SELECT booking_id FROM share_links WHERE token = $1", [token]).first?.string(0)
                guard owner == booking.rawValue else {
                    throw StoreError(.constraint, "That share link token belongs to another booking; make a new token.")
                }
            }
        }
    }

    /// The booking a share link token opens; nil for an unknown token.
    public func shareLinkBooking(token: String) throws -> BookingID? {
        try read { c in
            try c.query("SELECT booking_id FROM share_links WHERE token = $1", [token]).first?.string(0)
                .flatMap(BookingID.init)
        }
    }

    /// The share link tokens of `booking`, oldest first.
    public func shareLinks(of booking: BookingID) throws -> [String] {
        try read { c in
            try c.query(
                "SELECT token FROM share_links WHERE booking_id = $1 ORDER BY created_ms, token", [booking.rawValue]
            ).rows.compactMap { $0.string(0) }
        }
    }
}
