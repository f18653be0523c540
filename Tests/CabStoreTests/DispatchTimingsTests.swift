import CabCore
import CabPostgres
import CabTestSupport
import Foundation
import Testing

@testable import CabStore

/// The chaos run's timings as the database holds them (`cab check-dispatch --faults`): a batch's offers that ran
/// out are due at their expiry and late by their close, a trip given up is due a dispatch time after it last
/// entered `dispatching`, and every fence granted is listed.
@Suite struct DispatchTimingsTests {
    @Test func offerAndDispatchTimeoutsAreMeasuredFromTheRowsAndFencesAreListed() throws {
        let (f, _) = try DispatchInvariantCheckerTests.fixture()
        let (d1, d2) = (try f.driver(), try f.driver())
        let (ranOut, movedOn, givenUp, early, onTime) = (
            try f.booking(), try f.booking(), try f.booking(), try f.booking(), try f.booking()
        )
        // Two offers of one batch, due 25 s ago, closed 1.2 s after it; one closed before its expiry (its batch
        // moved on when the other driver declined): not a timeout.
        for driver in [d1, d2] {
            try DispatchInvariantCheckerTests.insertOffer(
                f, booking: ranOut, driver: driver, state: "expired", writtenSecondsAgo: 30, openSeconds: 5,
                closedSecondsAgo: 24)
        }
        try DispatchInvariantCheckerTests.insertOffer(
            f, booking: movedOn, driver: d1, batch: 2, state: "expired", writtenSecondsAgo: 30, openSeconds: 5,
            closedSecondsAgo: 28)
        // Closed by its owner's timer 40 ms before the expiry the offers' write set (the timer counts from the
        // search, before the write): on time, late by 0.
        try DispatchInvariantCheckerTests.insertOffer(
            f, booking: onTime, driver: d2, batch: 1, state: "expired", writtenSecondsAgo: 20, openSeconds: 5)
        try f.sql.query(
            "UPDATE dispatch_offers SET closed_at = expires_at - interval '40 milliseconds' WHERE booking_id = $1",
            [onTime.rawValue])
        // Given up 30.4 s after entering dispatching (a 30 s dispatch time: 400 ms late), and one after 12 s.
        func giveUp(_ booking: BookingID, afterMilliseconds: Int64) throws {
            try f.sql.query(
                """
                INSERT INTO booking_history (booking_id, step, from_status, to_status, event, actor_role, at_ms)
                SELECT $1, max(step) + 1, 'dispatching', 'no_driver_found', 'no_driver_found', 'system',
                    max(at_ms) FILTER (WHERE to_status = 'dispatching') + $2::bigint
                FROM booking_history WHERE booking_id = $1
                """, [booking.rawValue, afterMilliseconds] as [any PostgresBindable])
        }
        try giveUp(givenUp, afterMilliseconds: 30_400)
        try giveUp(early, afterMilliseconds: 12_000)
        let timings = try DispatchTimings.read(conninfo: f.conninfo, dispatchMilliseconds: 30_000)
        #expect(timings.offerTimeouts.map(\.booking) == [ranOut.rawValue, onTime.rawValue])
        let late = try #require(timings.offerTimeouts.first?.lateMilliseconds)
        #expect((990...1_010).contains(late), "\(late)")
        #expect(timings.offerTimeouts.last?.lateMilliseconds == 0)
        #expect(timings.dispatchTimeouts.map(\.booking) == [givenUp.rawValue])
        #expect(timings.dispatchTimeouts.first?.lateMilliseconds == 400)
        #expect(timings.earlyGiveUps == 1)
        #expect(timings.grants.map(\.owner) == ["node-a"] && timings.grants.first?.shard == 3)
    }
}
