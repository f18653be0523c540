import CabCore
import CabPostgres

/// When a PostgreSQL city's durable timers fired against when they were due, and when each shard's fences were
/// granted, read from the dispatch tables after a run (issue 18's chaos-run goals: timeouts late by at most a
/// lease and 2 s after a fault and by under 1 s at p99 otherwise, takeovers after a kill under 13 s). Every time
/// here is the database's (`clock_timestamp()`, or a node's stamp set by the database's clock), so a node whose
/// own clock is off does not skew the figures.
public struct DispatchTimings: Sendable, Hashable {
    /// One timer: the booking, when it was due and how late it fired (milliseconds since the Unix epoch; late is
    /// negative for a timer that fired early).
    public struct Timer: Sendable, Hashable {
        public var booking: String
        public var dueMilliseconds: Int64
        public var lateMilliseconds: Int64

        public init(booking: String, dueMilliseconds: Int64, lateMilliseconds: Int64) {
            self.booking = booking
            self.dueMilliseconds = dueMilliseconds
            self.lateMilliseconds = lateMilliseconds
        }
    }

    /// One fence granted: the shard, the node it went to, and when.
    public struct Grant: Sendable, Hashable {
        public var shard: Int
        public var owner: String
        public var acquiredMilliseconds: Int64

        public init(shard: Int, owner: String, acquiredMilliseconds: Int64) {
            self.shard = shard
            self.owner = owner
            self.acquiredMilliseconds = acquiredMilliseconds
        }
    }

    /// Batches of offers that ran out unanswered, each closed at or after its offers' expiry by the trip's owner
    /// (or a new owner, or a node offering one of its drivers another trip): due at the expiry, late by the
    /// last close. The owner's timer counts from its search, a few milliseconds before the offers' write set their
    /// expiry in the database, so a batch it closed up to `ownTimerMilliseconds` before that expiry is on time
    /// (late by 0); one closed earlier ended for another reason (its drivers declined) and is no timeout.
    public var offerTimeouts: [Timer]
    /// Trips given up as `no_driver_found` at their dispatch deadline: due `dispatchMilliseconds` after the trip
    /// last entered `dispatching`, late by the history row's time.
    public var dispatchTimeouts: [Timer]
    /// Trips given up more than a second before their dispatch deadline (every batch asked): not timeouts.
    public var earlyGiveUps: Int
    /// Every fence granted, oldest first.
    public var grants: [Grant]

    /// Timings as read (or made up by a test).
    public init(offerTimeouts: [Timer], dispatchTimeouts: [Timer], earlyGiveUps: Int, grants: [Grant]) {
        self.offerTimeouts = offerTimeouts
        self.dispatchTimeouts = dispatchTimeouts
        self.earlyGiveUps = earlyGiveUps
        self.grants = grants
    }

    /// How long before its offers' expiry in the database a batch closed by its owner's timer may be closed (see
    /// `offerTimeouts`): the search-to-write time, a few milliseconds, up to a few hundred in a burst.
    public static let ownTimerMilliseconds: Int64 = 1_000

    /// Reads the timings of the database at `conninfo`, whose nodes give up dispatching after
    /// `dispatchMilliseconds` (`trip.dispatch_seconds`).
    public static func read(conninfo: String, dispatchMilliseconds: Int64) throws -> DispatchTimings {
        do {
            let c = try PostgresConnection(conninfo: conninfo)
            return try c.transaction(isolation: .repeatableRead) { tx in
                func milliseconds(_ expression: String) -> String {
                    "(extract(epoch FROM \(expression)) * 1000)::bigint"
                }
                let offers = try tx.query(
                    """
                    SELECT booking_id, \(milliseconds("min(expires_at)")),
                        greatest(0, \(milliseconds("max(closed_at)")) - \(milliseconds("min(expires_at)")))
                    FROM dispatch_offers
                    WHERE state = 'expired' AND closed_at >= expires_at - $1::float8 * interval '1 millisecond'
                    GROUP BY booking_id, batch ORDER BY 2
                    """, [ownTimerMilliseconds]
                ).rows.compactMap { try timer($0) }
                let given = try tx.query(
                    """
                    SELECT h.booking_id, d.at_ms + $1::bigint, h.at_ms - (d.at_ms + $1::bigint)
                    FROM booking_history h
                    CROSS JOIN LATERAL (
                        SELECT at_ms FROM booking_history e
                        WHERE e.booking_id = h.booking_id AND e.step < h.step AND e.to_status = 'dispatching'
                        ORDER BY e.step DESC LIMIT 1
                    ) d
                    WHERE h.to_status = 'no_driver_found'
                    ORDER BY 2
                    """, [dispatchMilliseconds]
                ).rows.compactMap { try timer($0) }
                let grants = try tx.query(
                    """
                    SELECT shard, owner, \(milliseconds("acquired_at"))
                    FROM dispatch_shard_fences ORDER BY acquired_at, shard
                    """
                ).rows.compactMap { row -> Grant? in
                    guard let shard = try row.int(0), let owner = row.string(1), let at = try row.int64(2) else {
                        return nil
                    }
                    return Grant(shard: shard, owner: owner, acquiredMilliseconds: at)
                }
                return DispatchTimings(
                    offerTimeouts: offers, dispatchTimeouts: given.filter { $0.lateMilliseconds >= -1_000 },
                    earlyGiveUps: given.count { $0.lateMilliseconds < -1_000 }, grants: grants)
            }
        } catch {
            throw StoreError.translatingPostgres(error)
        }
    }

    private static func timer(_ row: PostgresRow) throws(PostgresError) -> Timer? {
        guard let booking = row.string(0), let due = try row.int64(1), let late = try row.int64(2) else { return nil }
        return Timer(booking: booking, dueMilliseconds: due, lateMilliseconds: late)
    }
}
