import CabCore

/// Promised versus actual pickup times over the trips picked up so far (`GET /v1/stats`).
public struct PickupStatistics: Hashable, Sendable, Codable {
    /// Trips with both a promised and an actual pickup time.
    public var tripsPickedUp: Int
    /// Of those, picked up no later than promised.
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

    enum CodingKeys: String, CodingKey {
        case trips
        case tripsPickedUp = "trips_picked_up"
        case onTime = "on_time"
        case onTimeShare = "on_time_share"
        case meanPromisedWaitSeconds = "mean_promised_wait_s"
        case meanActualWaitSeconds = "mean_actual_wait_s"
        case medianDelaySeconds = "median_delay_s"
        case p90DelaySeconds = "p90_delay_s"
    }
}

extension SQLiteStore {
    /// Promised versus actual pickup over the newest `limit` picked-up trips, and trip counts by state.
    public func pickupStatistics(limit: Int = 100_000) throws -> PickupStatistics {
        let rows = try readers.read { c in
            try c.query(
                "SELECT accepted_ms, promised_pickup_ms, picked_up_ms FROM bookings "
                    + "WHERE picked_up_ms IS NOT NULL AND promised_pickup_ms IS NOT NULL AND accepted_ms IS NOT NULL "
                    + "ORDER BY created_ms DESC LIMIT ?",
                [limit]
            ) { r in (r.int64(0), r.int64(1), r.int64(2)) }
        }
        let counts = try readers.read { c in
            try c.query("SELECT status, count(*) FROM bookings GROUP BY status", []) { r in (r.string(0), r.int(1)) }
        }
        let delays = rows.map { Double($0.2 - $0.1) / 1000 }.sorted()
        func percentile(_ p: Double) -> Double {
            delays.isEmpty ? 0 : delays[min(delays.count - 1, Int((Double(delays.count - 1) * p).rounded()))]
        }
        let n = Double(max(rows.count, 1))
        return PickupStatistics(
            tripsPickedUp: rows.count, onTime: delays.filter { $0 <= 0 }.count,
            onTimeShare: rows.isEmpty ? 0 : Double(delays.filter { $0 <= 0 }.count) / n,
            meanPromisedWaitSeconds: rows.reduce(0) { $0 + Double($1.1 - $1.0) / 1000 } / n,
            meanActualWaitSeconds: rows.reduce(0) { $0 + Double($1.2 - $1.0) / 1000 } / n,
            medianDelaySeconds: percentile(0.5), p90DelaySeconds: percentile(0.9),
            trips: Dictionary(uniqueKeysWithValues: counts))
    }
}
