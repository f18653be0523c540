import CabCore

/// Promised versus actual pickup times over the trips picked up so far (`GET /v1/stats`).
public struct PickupStatistics: Hashable, Sendable, Codable {
    /// Trips with both a promised and an actual pickup time.
    public var tripsPickedUp: Int
    /// Of those, picked up no later than promised and never overdue before (a trip re-dispatched because its
    /// first driver was late is not on time, even if the second driver was).
    public var onTime: Int
    /// `onTime / tripsPickedUp` (0 when none).
    public var onTimeShare: Double
    /// Mean promised wait from acceptance to pickup, seconds.
    public var meanPromisedWaitSeconds: Double
    /// Mean actual wait from acceptance to pickup, seconds.
    public var meanActualWaitSeconds: Double
    /// Median lateness (actual minus promised; negative: early), seconds.
    public var medianDelaySeconds: Double
    /// 90th percentile lateness, seconds.
    public var p90DelaySeconds: Double
    /// Trips in each state (all bookings).
    public var trips: [String: Int]
    /// Trips whose pickup was late (all bookings): overdue and re-dispatched, reached after the promised time,
    /// or still on the way past it.
    public var late: Int
    /// Trips that ended without a ride because nobody took them: `no_driver_found` and `expired`.
    public var abandoned: Int
    /// Trips that went back to dispatch at least once.
    public var redispatched: Int
    /// Re-dispatches in all (a trip may go back more than once).
    public var redispatches: Int

    enum CodingKeys: String, CodingKey {
        case trips
        case tripsPickedUp = "trips_picked_up"
        case onTime = "on_time"
        case onTimeShare = "on_time_share"
        case meanPromisedWaitSeconds = "mean_promised_wait_s"
        case meanActualWaitSeconds = "mean_actual_wait_s"
        case medianDelaySeconds = "median_delay_s"
        case p90DelaySeconds = "p90_delay_s"
        case late, abandoned, redispatched, redispatches
    }
}

extension SQLiteStore {
    /// Promised versus actual pickup over the newest `limit` picked-up trips, trip counts by state, and the late,
    /// abandoned and re-dispatched trips (open trips on the way past their promise count as late at `now`).
    public func pickupStatistics(limit: Int = 100_000, now: Instant? = nil) throws -> PickupStatistics {
        let rows = try readers.read { c in
            try c.query(
                "SELECT accepted_ms, promised_pickup_ms, picked_up_ms, pickup_overdue_ms FROM bookings "
                    + "WHERE picked_up_ms IS NOT NULL AND promised_pickup_ms IS NOT NULL AND accepted_ms IS NOT NULL "
                    + "ORDER BY created_ms DESC LIMIT ?",
                [limit]
            ) { r in (r.int64(0), r.int64(1), r.int64(2), r.isNull(3)) }
        }
        let counts = try readers.read { c in
            try c.query("SELECT status, count(*) FROM bookings GROUP BY status", []) { r in (r.string(0), r.int(1)) }
        }
        let nowMilliseconds = now?.millisecondsSinceEpoch ?? Int64.max
        let journey =
            try readers.read { c in
                try c.first(
                    "SELECT "
                        + "count(*) FILTER (WHERE pickup_overdue_ms IS NOT NULL OR (promised_pickup_ms IS NOT NULL AND ("
                        + "coalesce(arrived_ms, picked_up_ms) > promised_pickup_ms OR (status IN (?, ?) AND ? > promised_pickup_ms)))), "
                        + "count(*) FILTER (WHERE redispatch_count > 0), coalesce(sum(redispatch_count), 0) FROM bookings",
                    [TripState.accepted.rawValue, TripState.arriving.rawValue, nowMilliseconds]
                ) { r in (r.int(0), r.int(1), r.int(2)) }
            } ?? (0, 0, 0)
        let delays = rows.map { Double($0.2 - $0.1) / 1000 }.sorted()
        let onTime = rows.filter { $0.2 <= $0.1 && $0.3 }.count
        func percentile(_ p: Double) -> Double {
            delays.isEmpty ? 0 : delays[min(delays.count - 1, Int((Double(delays.count - 1) * p).rounded()))]
        }
        let n = Double(max(rows.count, 1))
        let byState = Dictionary(uniqueKeysWithValues: counts)
        return PickupStatistics(
            tripsPickedUp: rows.count, onTime: onTime, onTimeShare: rows.isEmpty ? 0 : Double(onTime) / n,
            meanPromisedWaitSeconds: rows.reduce(0) { $0 + Double($1.1 - $1.0) / 1000 } / n,
            meanActualWaitSeconds: rows.reduce(0) { $0 + Double($1.2 - $1.0) / 1000 } / n,
            medianDelaySeconds: percentile(0.5), p90DelaySeconds: percentile(0.9),
            trips: byState, late: journey.0,
            abandoned: (byState[TripState.noDriverFound.rawValue] ?? 0) + (byState[TripState.expired.rawValue] ?? 0),
            redispatched: journey.1, redispatches: journey.2)
    }
}
