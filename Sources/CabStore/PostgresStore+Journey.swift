import CabCore
import CabPostgres

extension PostgresStore {
    /// Stores the rider's `rating` of `booking` once, only when it is `completed`, and answers the booking as
    /// stored; throws `.notFound`, `.alreadyRated` or `.notCompleted` (the check and the write are one statement,
    /// so two racing ratings, on any nodes, cannot both land).
    public func rate(_ booking: BookingID, _ rating: TripRating) throws -> Booking {
        try write { c in
            let changed = try c.query(
                "UPDATE bookings SET rating_stars = $1, rating_comment = $2, rated_ms = $3 "
                    + "WHERE id = $4 AND status = $5 AND rating_stars IS NULL",
                [
                    rating.stars, rating.comment, rating.at.millisecondsSinceEpoch, booking.rawValue,
                    TripState.completed.rawValue,
                ] as [any PostgresBindable]
            ).affectedRows
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
        let ids = Array(Set(drivers.map(\.rawValue))).sorted()
        let rows = try read { c in
            try c.query(
                "SELECT driver_id, avg(rating_stars)::double precision, count(rating_stars) FROM bookings "
                    + "WHERE driver_id = ANY($1::text[]) AND rating_stars IS NOT NULL GROUP BY driver_id",
                [Self.textArray(ids)]
            ).rows.map { pg in
                let r = PostgresStoreRow(row: pg)
                return (
                    DriverID(uncheckedRawValue: r.string(0)), DriverRatingSummary(average: r.double(1), count: r.int(2))
                )
            }
        }
        return Dictionary(rows, uniquingKeysWith: { a, _ in a })
    }

    /// Promised versus actual pickup over the newest `limit` picked-up trips, trip counts by state, and the late,
    /// abandoned and re-dispatched trips (open trips on the way past their promise count as late at `now`).
    public func pickupStatistics(limit: Int = 100_000, now: Instant? = nil) throws -> PickupStatistics {
        let nowMilliseconds = now?.millisecondsSinceEpoch ?? Int64.max
        return try read { c in
            let pickups = try c.query(
                "SELECT accepted_ms, promised_pickup_ms, picked_up_ms, pickup_overdue_ms FROM bookings "
                    + "WHERE picked_up_ms IS NOT NULL AND promised_pickup_ms IS NOT NULL AND accepted_ms IS NOT NULL "
                    + "ORDER BY created_ms DESC LIMIT $1",
                [max(0, limit)]
            ).rows.map { pg in
                let r = PostgresStoreRow(row: pg)
                return (r.int64(0), r.int64(1), r.int64(2), r.isNull(3))
            }
            let counts = try c.query("SELECT status, count(*) FROM bookings GROUP BY status").rows.map { pg in
                let r = PostgresStoreRow(row: pg)
                return (r.string(0), r.int(1))
            }
            let journey =
                try c.query(
                    "SELECT "
                        + "count(*) FILTER (WHERE pickup_overdue_ms IS NOT NULL OR (promised_pickup_ms IS NOT NULL AND ("
                        + "coalesce(arrived_ms, picked_up_ms) > promised_pickup_ms OR (status IN ($1, $2) AND $3 > promised_pickup_ms)))), "
                        + "count(*) FILTER (WHERE redispatch_count > 0), coalesce(sum(redispatch_count), 0) FROM bookings",
                    [TripState.accepted.rawValue, TripState.arriving.rawValue, nowMilliseconds]
                        as [any PostgresBindable]
                ).first.map { pg in
                    let r = PostgresStoreRow(row: pg)
                    return (r.int(0), r.int(1), r.int(2))
                } ?? (0, 0, 0)
            return PickupStatistics(pickups: pickups, counts: counts, journey: journey)
        }
    }
}

extension PickupStatistics {
    /// The figures from the rows both stores read: each picked-up trip's (accepted, promised, picked up, never
    /// overdue), the trip count of each state, and (late, re-dispatched trips, re-dispatches).
    init(pickups rows: [(Int64, Int64, Int64, Bool)], counts: [(String, Int)], journey: (Int, Int, Int)) {
        let delays = rows.map { Double($0.2 - $0.1) / 1000 }.sorted()
        let onTime = rows.filter { $0.2 <= $0.1 && $0.3 }.count
        func percentile(_ p: Double) -> Double {
            delays.isEmpty ? 0 : delays[min(delays.count - 1, Int((Double(delays.count - 1) * p).rounded()))]
        }
        let n = Double(max(rows.count, 1))
        let byState = Dictionary(counts, uniquingKeysWith: +)
        self.init(
            tripsPickedUp: rows.count, onTime: onTime, onTimeShare: rows.isEmpty ? 0 : Double(onTime) / n,
            meanPromisedWaitSeconds: rows.reduce(0) { $0 + Double($1.1 - $1.0) / 1000 } / n,
            meanActualWaitSeconds: rows.reduce(0) { $0 + Double($1.2 - $1.0) / 1000 } / n,
            medianDelaySeconds: percentile(0.5), p90DelaySeconds: percentile(0.9),
            trips: byState, late: journey.0,
            abandoned: (byState[TripState.noDriverFound.rawValue] ?? 0) + (byState[TripState.expired.rawValue] ?? 0),
            redispatched: journey.1, redispatches: journey.2)
    }
}
