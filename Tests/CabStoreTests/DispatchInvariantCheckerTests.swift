import CabCore
import CabPostgres
import CabTestSupport
import Foundation
import Testing

@testable import CabStore

/// `cab check-dispatch`'s checker on a real PostgreSQL: clean after correct fenced writes, and each rule's
/// violation, made by writing rows directly, reported alone and by its booking or driver.
@Suite struct DispatchInvariantCheckerTests {
    static let a = ClusterNodeID("node-a")
    static let b = ClusterNodeID("node-b")
    static let shard = DispatchShard(3)

    /// A fixture whose shard 3 is held by A (fence 1, granted an hour ago so rows written in the past are under it).
    static func fixture() throws -> (DispatchFixture, ShardFence) {
        let f = try DispatchFixture()
        let lease = try #require(try f.store.acquireLease(of: shard, for: a, durationMilliseconds: 60_000))
        try f.sql.execute("UPDATE dispatch_shard_fences SET acquired_at = acquired_at - interval '1 hour'")
        return (f, lease.fence)
    }

    static func check(_ f: DispatchFixture) throws -> DispatchInvariantReport {
        try DispatchInvariantChecker.check(conninfo: f.conninfo, graceMilliseconds: 5_000)
    }

    /// Writes an offer row directly (written now unless `writtenSecondsAgo`); one not open is closed when
    /// written unless `closedSecondsAgo` says otherwise.
    static func insertOffer(
        _ f: DispatchFixture, booking: BookingID, driver: DriverID, batch: Int = 1, state: String, fence: Int64 = 1,
        writtenSecondsAgo: Int = 0, openSeconds: Int = 60, closedSecondsAgo: Int? = nil
    ) throws {
        try f.sql.query(
            """
            INSERT INTO dispatch_offers
                (booking_id, shard, driver_id, batch, state, expires_at, fence, written_at, closed_at)
            VALUES ($1, $2, $3, $4, $5,
                clock_timestamp() + ($7::float8 - $6::float8) * interval '1 second', $8,
                clock_timestamp() - $6::float8 * interval '1 second',
                clock_timestamp() - $9::float8 * interval '1 second')
            """,
            [
                booking.rawValue, DispatchShard(of: booking).index, driver.rawValue, batch, state, writtenSecondsAgo,
                openSeconds, fence,
                closedSecondsAgo.map(Int64.init) ?? (state == "open" ? nil : Int64(writtenSecondsAgo)),
            ] as [any PostgresBindable])
    }

    @Test func aCleanRunBreaksNoRule() throws {
        let (f, fence) = try Self.fixture()
        let (d1, d2) = (try f.driver(), try f.driver())
        let booking = try f.booking(in: Self.shard)
        _ = try f.store.writeOffers(
            .init(booking: booking, batch: 1, drivers: [d1, d2], openMilliseconds: 1), under: fence)
        _ = try f.store.writeOffers(
            .init(booking: booking, batch: 2, drivers: [d1], openMilliseconds: 60_000), under: fence)
        _ = try f.store.markAlert(of: booking, thresholdSeconds: 60, under: fence)
        try f.store.scheduleDeadline(.pickupOverdue, of: booking, inMilliseconds: 600_000, under: fence)
        // A takeover, then writes under the new fence.
        try f.store.releaseLease(fence, for: Self.a)
        let new = try #require(try f.store.acquireLease(of: Self.shard, for: Self.b, durationMilliseconds: 60_000))
        try f.store.closeBatch(2, of: booking, under: new.fence)
        _ = try f.store.writeOffers(
            .init(booking: booking, batch: 3, drivers: [d2], openMilliseconds: 60_000), under: new.fence)
        let report = try Self.check(f)
        #expect(report.isClean, "\(report)")
        #expect(report.counts.map(\.count) == [0, 0, 0, 0, 0])
    }

    @Test func twoAcceptedOffersOrAnotherDriversAcceptedOfferIsADoubleAssignment() throws {
        let (f, _) = try Self.fixture()
        let (d1, d2) = (try f.driver(), try f.driver())
        let twice = try f.booking(in: Self.shard)
        try Self.insertOffer(f, booking: twice, driver: d1, state: "accepted")
        try Self.insertOffer(f, booking: twice, driver: d2, batch: 2, state: "accepted")
        let mismatched = try f.booking(in: Self.shard)
        try Self.insertOffer(f, booking: mismatched, driver: d1, batch: 1, state: "accepted")
        try f.sql.query(
            "UPDATE bookings SET status = 'accepted', driver_id = $1 WHERE id = $2", [d2.rawValue, mismatched.rawValue])
        let report = try Self.check(f)
        #expect(report.doubleAssignments == [twice.rawValue, mismatched.rawValue].sorted())
        #expect(report.driversWithTwoOpenOffers.isEmpty && report.staleFenceWrites.isEmpty)
        #expect(!report.isClean)
    }

    @Test func offersOfOneDriverOpenAtOnceAreFoundEvenAfterTheyClosed() throws {
        let (f, _) = try Self.fixture()
        let (d1, d2) = (try f.driver(), try f.driver())
        let (first, second) = (try f.booking(in: Self.shard), try f.booking(in: Self.shard))
        // d1: open from 30 s ago until closed 10 s ago, and another from 20 s ago until 15 s ago: overlapping.
        try Self.insertOffer(
            f, booking: first, driver: d1, state: "expired", writtenSecondsAgo: 30, closedSecondsAgo: 10)
        try Self.insertOffer(
            f, booking: second, driver: d1, state: "declined", writtenSecondsAgo: 20, closedSecondsAgo: 15)
        // d2: one after the other, never both open.
        try Self.insertOffer(
            f, booking: first, driver: d2, state: "expired", writtenSecondsAgo: 30, closedSecondsAgo: 25)
        try Self.insertOffer(f, booking: second, driver: d2, state: "open", writtenSecondsAgo: 20)
        let report = try Self.check(f)
        #expect(report.driversWithTwoOpenOffers == [d1.rawValue])
        #expect(report.doubleAssignments.isEmpty && report.staleFenceWrites.isEmpty && report.overdueTrips.isEmpty)
    }

    @Test func aDriverOnTwoOpenTripsIsReported() throws {
        let (f, _) = try Self.fixture()
        let driver = try f.driver()
        let (first, second) = (try f.booking(), try f.booking())
        // The store's unique index forbids it: drop it in this test database to make the violation exist.
        try f.sql.execute("DROP INDEX one_open_trip_per_driver")
        try f.sql.query(
            "UPDATE bookings SET status = 'arriving', driver_id = $1 WHERE id = ANY($2::text[])",
            [driver.rawValue, PostgresStore.textArray([first.rawValue, second.rawValue])])
        let report = try Self.check(f)
        #expect(report.driversWithTwoOpenTrips == [driver.rawValue])
        #expect(report.counts.map(\.count) == [0, 0, 1, 0, 0])
    }

    @Test func writesUnderAFenceSupersededOrNeverGrantedAreStale() throws {
        let (f, fence) = try Self.fixture()
        let driver = try f.driver()
        let (kept, late, forged, marked) = (
            try f.booking(in: Self.shard), try f.booking(in: Self.shard), try f.booking(in: Self.shard),
            try f.booking(in: Self.shard)
        )
        try Self.insertOffer(f, booking: kept, driver: driver, state: "expired", fence: fence.fence)
        try f.store.releaseLease(fence, for: Self.a)
        _ = try #require(try f.store.acquireLease(of: Self.shard, for: Self.b, durationMilliseconds: 60_000))
        // Fence 1 after fence 2 was granted; fence 9 was never granted; an alert mark under fence 1 too.
        try Self.insertOffer(f, booking: late, driver: driver, batch: 2, state: "expired", fence: 1)
        try Self.insertOffer(f, booking: forged, driver: driver, batch: 3, state: "expired", fence: 9)
        try f.sql.query(
            """
            INSERT INTO dispatch_alert_marks (booking_id, shard, threshold_s, fence, written_at)
            VALUES ($1, $2, 60, 1, clock_timestamp())
            """, [marked.rawValue, Self.shard.index] as [any PostgresBindable])
        let report = try Self.check(f)
        #expect(report.staleFenceWrites == [late.rawValue, forged.rawValue, marked.rawValue].sorted())
        #expect(report.counts.map(\.count) == [0, 0, 0, 3, 0])
    }

    @Test func aTripPastItsDeadlineThatIsNotTerminalIsReported() throws {
        let (f, fence) = try Self.fixture()
        let (overdue, recent, finished) = (
            try f.booking(in: Self.shard), try f.booking(in: Self.shard), try f.booking(in: Self.shard)
        )
        for booking in [overdue, recent, finished] {
            try f.store.scheduleDeadline(.noShowWait, of: booking, inMilliseconds: 1, under: fence)
        }
        // Due a minute ago (overdue, finished) or a second ago (recent, inside the 5 s grace).
        try f.sql.query(
            "UPDATE dispatch_deadlines SET due_at = clock_timestamp() - interval '1 minute' WHERE booking_id = ANY($1::text[])",
            [PostgresStore.textArray([overdue.rawValue, finished.rawValue])])
        try f.sql.query("UPDATE bookings SET status = 'completed' WHERE id = $1", [finished.rawValue])
        let report = try Self.check(f)
        #expect(report.overdueTrips == [overdue.rawValue])
        #expect(report.counts.map(\.count) == [0, 0, 0, 0, 1])
    }

    @Test func aDatabaseWithoutTheDispatchTablesIsRefusedSayingWhatToRun() throws {
        let database = try SharedPostgres.newDatabase()
        let c = try PostgresConnection(conninfo: database)
        try PostgresSchema.migrate(c, through: 2)
        let error = #expect(throws: StoreError.self) { try DispatchInvariantChecker.check(conninfo: database) }
        #expect(error?.message.contains("cab migrate") == true)
    }
}
