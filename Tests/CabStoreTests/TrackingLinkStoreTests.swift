import CabCore
import Testing

@testable import CabStore

/// Tracking links are stored (issue 14): a link a rider shared keeps working after the server restarts.
@Suite struct TrackingLinkStoreTests {
    @Test func aLinkSurvivesARestartOfTheStore() throws {
        let f = try StoreFixture()
        let booking = f.newBooking(for: try f.makeRider())
        _ = try f.store.create(booking, idempotencyKey: nil)
        let token = String(repeating: "a", count: 43)
        try f.store.createTrackingLink(token, for: booking.id, at: f.clockStart)
        #expect(try f.store.trackingLinkBooking(token) == booking.id)
        try f.reopen()
        #expect(try f.store.trackingLinkBooking(token) == booking.id)
        #expect(try f.store.trackingLinkBooking(String(repeating: "b", count: 43)) == nil)
    }

    @Test func aTokenIsStoredOnce() throws {
        let f = try StoreFixture()
        let first = f.newBooking(for: try f.makeRider())
        let second = f.newBooking(for: try f.makeRider())
        _ = try f.store.create(first, idempotencyKey: nil)
        _ = try f.store.create(second, idempotencyKey: nil)
        try f.store.createTrackingLink("t", for: first.id, at: f.clockStart)
        #expect(throws: (any Error).self) { try f.store.createTrackingLink("t", for: second.id, at: f.clockStart) }
        #expect(try f.store.trackingLinkBooking("t") == first.id)
    }
}
