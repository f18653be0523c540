import CabCore
import CabSQLite

/// A driver's average rating and how many ratings it is made of.
public struct DriverRatingSummary: Hashable, Sendable {
    /// The mean of the stars, 1 to 5.
    public var average: Double
    /// How many trips were rated.
    public var count: Int
}

extension SQLiteStore {
    /// Stores the rider's `rating` of `booking` once, only when it is `completed`, and answers the booking as
    /// stored; throws `.notFound`, `.alreadyRated` or `.notCompleted` (the check and the write are one statement,
    /// so two racing ratings cannot both land).
    public func rate(_ booking: BookingID, _ rating: TripRating) throws -> Booking {
        try writer.write { c in
            let changed = try c.run(
                "UPDATE bookings SET rating_stars = ?, rating_comment = ?, rated_ms = ? "
                    + "WHERE id = ? AND status = ? AND rating_stars IS NULL",
                [
                    rating.stars, rating.comment, rating.at.millisecondsSinceEpoch, booking.rawValue,
                    TripState.completed.rawValue,
                ])
            guard let stored = try Self.booking(booking.rawValue, on: c) else {
                throw CoreError(.notFound, "No booking \(booking).")
            }
            guard changed == 1 else {
                if stored.rating != nil {
                    throw CoreError(.alreadyRated, "You have already rated this trip; a trip is rated once.")
                }
                throw CoreError(
                    .notCompleted, "You can rate the trip once it is completed; \(stored.status.situation).")
            }
            return stored
        }
    }

    /// The rating summaries of `drivers` (drivers without any rating are missing from the answer).
    /// - Complexity: one indexed scan of each driver's bookings.
    public func ratings(of drivers: [DriverID]) throws -> [DriverID: DriverRatingSummary] {
        guard !drivers.isEmpty else { return [:] }
        // Constant SQL: the placeholders are counted; every id is a bound parameter.
        let ids = Array(Set(drivers.map(\.rawValue))).sorted()
        let placeholders = Array(repeating: "?", count: ids.count).joined(separator: ", ")
        let rows = try readers.read { c in
            try c.query(
                "SELECT driver_id, avg(rating_stars), count(rating_stars) FROM bookings "
                    + "WHERE driver_id IN (\(placeholders)) AND rating_stars IS NOT NULL GROUP BY driver_id",
                ids
            ) { r in
                (DriverID(uncheckedRawValue: r.string(0)), DriverRatingSummary(average: r.double(1), count: r.int(2)))
            }
        }
        return Dictionary(rows, uniquingKeysWith: { a, _ in a })
    }
}
