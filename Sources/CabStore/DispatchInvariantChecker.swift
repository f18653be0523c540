import CabCore
import CabPostgres

/// What `cab check-dispatch` found: the bookings or drivers breaking each rule of dispatch across nodes (issue 18).
/// Every list is empty in a correct run.
public struct DispatchInvariantReport: Sendable, Hashable {
    /// Bookings with two accepted offers, or whose accepted offer's driver is not the booking's driver.
    public var doubleAssignments: [String]
    /// Drivers who held two offers open at the same time (their open intervals overlapped).
    public var driversWithTwoOpenOffers: [String]
    /// Drivers with two trips open now (accepted, arriving, arrived or in progress).
    public var driversWithTwoOpenTrips: [String]
    /// Bookings with a write (offer, deadline, alert mark) made under a fence that was not the shard's current
    /// one when it was written: a later fence had been granted already, or that fence never was.
    public var staleFenceWrites: [String]
    /// Bookings not terminal whose deadline passed more than the grace ago and was never fired.
    public var overdueTrips: [String]

    /// True when every rule holds.
    public var isClean: Bool { counts.allSatisfy { $0.count == 0 } }

    /// Each rule's name and its count, in the order `cab check-dispatch` prints them.
    public var counts: [(name: String, count: Int, examples: [String])] {
        [
            ("double assignments", doubleAssignments.count, doubleAssignments),
            ("drivers with two open offers", driversWithTwoOpenOffers.count, driversWithTwoOpenOffers),
            ("drivers with two open trips", driversWithTwoOpenTrips.count, driversWithTwoOpenTrips),
            ("writes under a stale fence", staleFenceWrites.count, staleFenceWrites),
            ("trips past their deadline", overdueTrips.count, overdueTrips),
        ]
    }
}

/// Reads a PostgreSQL city's dispatch tables (schema v4) and reports what breaks the rules of dispatch across
/// nodes; read-only, one snapshot (`REPEATABLE READ`), so it can run beside live nodes or after a chaos run.
public enum DispatchInvariantChecker {
    /// The states a trip can be left in for good.
    static let terminalStates = TripState.allCases.filter(\.isTerminal).map(\.rawValue)
    /// The states of a trip a driver is on.
    static let tripOpenStates = [TripState.accepted, .arriving, .arrived, .inProgress].map(\.rawValue)

    /// Checks the database at `conninfo`; a deadline counts as missed once it is `graceMilliseconds` overdue
    /// (the lease time plus a margin: a killed owner's deadlines wait for the sweep or the next owner).
    public static func check(conninfo: String, graceMilliseconds: Int64 = 12_000) throws -> DispatchInvariantReport {
        let c: PostgresConnection
        do {
            c = try PostgresConnection(conninfo: conninfo)
        } catch {
            throw StoreError.translatingPostgres(error)
        }
        return try check(c, graceMilliseconds: graceMilliseconds)
    }

    /// Checks the database `c` is connected to.
    static func check(_ c: PostgresConnection, graceMilliseconds: Int64) throws -> DispatchInvariantReport {
        do {
            let version = try PostgresSchema.version(c)
            guard version >= 4 else {
                throw StoreError(
                    .schemaTooNew,
                    "The PostgreSQL database is at schema version \(version), without the dispatch tables of "
                        + "version 4: run `cab migrate --postgres URL` (or start a node) first.")
            }
            return try c.transaction(isolation: .repeatableRead) { tx in
                func ids(_ sql: String, _ parameters: [any PostgresBindable] = []) throws -> [String] {
                    try tx.query(sql, parameters).rows.compactMap { $0.string(0) }
                }
                return DispatchInvariantReport(
                    doubleAssignments: try ids(
                        """
                        SELECT booking_id FROM dispatch_offers WHERE state = 'accepted'
                            GROUP BY booking_id HAVING count(*) > 1
                        UNION
                        SELECT o.booking_id FROM dispatch_offers o JOIN bookings b ON b.id = o.booking_id
                            WHERE o.state = 'accepted' AND b.driver_id IS NOT NULL AND b.driver_id <> o.driver_id
                        ORDER BY 1
                        """),
                    driversWithTwoOpenOffers: try ids(
                        """
                        SELECT DISTINCT a.driver_id FROM dispatch_offers a JOIN dispatch_offers b
                            ON a.driver_id = b.driver_id AND (a.booking_id, a.batch) < (b.booking_id, b.batch)
                        WHERE a.written_at < least(coalesce(b.closed_at, b.expires_at), b.expires_at)
                            AND b.written_at < least(coalesce(a.closed_at, a.expires_at), a.expires_at)
                        ORDER BY 1
                        """),
                    driversWithTwoOpenTrips: try ids(
                        """
                        SELECT driver_id FROM bookings WHERE driver_id IS NOT NULL AND status = ANY($1::text[])
                        GROUP BY driver_id HAVING count(*) > 1 ORDER BY 1
                        """, [PostgresStore.textArray(tripOpenStates)]),
                    staleFenceWrites: try ids(
                        """
                        SELECT DISTINCT w.booking_id FROM (
                            SELECT booking_id, shard, fence, written_at FROM dispatch_offers
                            UNION ALL SELECT booking_id, shard, fence, written_at FROM dispatch_deadlines
                            UNION ALL SELECT booking_id, shard, fence, written_at FROM dispatch_alert_marks
                        ) AS w
                        WHERE EXISTS (
                                SELECT 1 FROM dispatch_shard_fences h
                                WHERE h.shard = w.shard AND h.fence > w.fence AND h.acquired_at <= w.written_at)
                            OR NOT EXISTS (
                                SELECT 1 FROM dispatch_shard_fences h
                                WHERE h.shard = w.shard AND h.fence = w.fence AND h.acquired_at <= w.written_at)
                        ORDER BY 1
                        """),
                    overdueTrips: try ids(
                        """
                        SELECT DISTINCT d.booking_id FROM dispatch_deadlines d JOIN bookings b ON b.id = d.booking_id
                        WHERE d.due_at < clock_timestamp() - $1::float8 * interval '1 millisecond'
                            AND NOT (b.status = ANY($2::text[]))
                        ORDER BY 1
                        """,
                        [graceMilliseconds, PostgresStore.textArray(terminalStates)] as [any PostgresBindable]))
            }
        } catch {
            throw StoreError.translatingPostgres(error)
        }
    }
}
