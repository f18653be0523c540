import CabCore
import Foundation
import Testing

@testable import CabStore

@Suite struct BookingStoreTests {
    @Test func createdBookingReadsBackWithItsHistory() throws {
        let f = try StoreFixture()
        let rider = try f.makeRider()
        let booking = f.newBooking(for: rider)
        let creation = try f.store.create(booking, idempotencyKey: nil)
        #expect(creation.created && creation.booking == booking)
        #expect(try f.store.booking(booking.id) == booking)
        let history = try f.store.history(booking.id)
        #expect(history.map(\.event) == [.book] && history[0].from == nil && history[0].actor == .rider(rider))
        #expect(try f.store.booking(.random()) == nil)
    }

    @Test func listsOwnBookingsNewestFirstPageByPage() throws {
        let f = try StoreFixture()
        let alice = try f.makeRider("Alice")
        let bob = try f.makeRider("Bob")
        var aliceIDs: [BookingID] = []
        for i in 0..<25 {
            let b = f.newBooking(for: alice, at: i / 2)  // pairs share a creation time: ties break on the id
            aliceIDs.append(b.id)
            _ = try f.store.create(b, idempotencyKey: nil)
        }
        for i in 0..<5 { _ = try f.store.create(f.newBooking(for: bob, at: i), idempotencyKey: nil) }

        var seen: [Booking] = []
        var cursor: String?
        var pages = 0
        repeat {
            let page = try f.store.bookings(BookingQuery(riderID: alice, limit: 10, cursor: cursor))
            seen += page.items
            cursor = page.nextCursor
            pages += 1
        } while cursor != nil
        #expect(pages == 3)
        #expect(Set(seen.map(\.id)) == Set(aliceIDs) && seen.count == 25)
        #expect(seen.allSatisfy { $0.riderID == alice })
        #expect(zip(seen, seen.dropFirst()).allSatisfy { ($0.createdAt, $0.id) > ($1.createdAt, $1.id) })

        let bobs = try f.store.bookings(BookingQuery(riderID: bob, limit: 100))
        #expect(bobs.items.count == 5 && bobs.nextCursor == nil && bobs.items.allSatisfy { $0.riderID == bob })

        _ = try f.apply(.riderCancel(reason: "no longer needed"), to: aliceIDs[3], by: .rider(alice))
        let cancelled = try f.store.bookings(BookingQuery(riderID: alice, statuses: [.cancelledByRider]))
        #expect(cancelled.items.map(\.id) == [aliceIDs[3]])
        #expect(try f.store.bookings(BookingQuery(riderID: bob, statuses: [.cancelledByRider])).items.isEmpty)
        #expect(throws: CoreError.self) { try f.store.bookings(BookingQuery(cursor: "garbage")) }
    }

    @Test func idempotentCreateReturnsTheFirstBooking() throws {
        let f = try StoreFixture()
        let rider = try f.makeRider()
        let key = IdempotencyKey(key: "k-1", requestFingerprint: "sha256:aaaa")
        let first = try f.store.create(f.newBooking(for: rider), idempotencyKey: key)
        let retry = try f.store.create(f.newBooking(for: rider, at: 5), idempotencyKey: key)
        #expect(first.created && !retry.created)
        #expect(retry.booking == first.booking)
        #expect(try f.store.bookings(BookingQuery(riderID: rider)).items.count == 1)

        let conflict = #expect(throws: CoreError.self) {
            try f.store.create(
                f.newBooking(for: rider), idempotencyKey: IdempotencyKey(key: "k-1", requestFingerprint: "sha256:bbbb"))
        }
        #expect(conflict?.code == .idempotencyConflict)

        let other = try f.makeRider()
        let theirs = try f.store.create(f.newBooking(for: other), idempotencyKey: key)
        #expect(theirs.created && theirs.booking.riderID == other)
        #expect(try f.count("bookings") == 2)
        #expect(try f.count("idempotency_keys") == 2)
    }

    @Test func aFailedCreateLeavesNothing() throws {
        let f = try StoreFixture()
        let stranger = RiderID.random()  // never stored: the foreign key fails
        let booking = f.newBooking(for: stranger)
        let error = #expect(throws: StoreError.self) {
            try f.store.create(booking, idempotencyKey: IdempotencyKey(key: "x", requestFingerprint: "y"))
        }
        #expect(error?.code == .constraint)
        #expect(try f.store.booking(booking.id) == nil)
        #expect(try f.store.history(booking.id).isEmpty)
        for table in ["bookings", "booking_history", "idempotency_keys"] {
            #expect(try f.count(table) == 0, "\(table)")
        }
    }

    @Test func aCancelledBookingStaysCancelledAfterReopening() throws {
        let f = try StoreFixture()
        let rider = try f.makeRider()
        let booking = try f.store.create(f.newBooking(for: rider), idempotencyKey: nil).booking
        _ = try f.apply(.dispatch, to: booking.id, by: .system, at: 1)
        _ = try f.apply(.accept(f.driver), to: booking.id, by: .driver(f.driver), at: 10)
        let cancelled = try f.apply(.riderCancel(reason: "found a bus"), to: booking.id, by: .rider(rider), at: 20)
        let again = try f.apply(.riderCancel(reason: "twice"), to: booking.id, by: .rider(rider), at: 30)
        #expect(again == cancelled)
        try f.reopen()
        let stored = try #require(try f.store.booking(booking.id))
        #expect(stored == cancelled && stored.status == .cancelledByRider)
        #expect(stored.cancellation?.reason == "found a bus" && stored.cancellation?.by == .rider(rider))
        #expect(stored.driverID == f.driver)
        let history = try f.store.history(booking.id)
        #expect(history.map(\.event) == [.book, .dispatch, .accept, .riderCancel])
        #expect(history.last?.reason == "found a bus" && history.last?.actor == .rider(rider))
        let late = #expect(throws: CoreError.self) {
            try f.apply(.start(code: "1234"), to: booking.id, by: .driver(f.driver), at: 40)
        }
        #expect(late?.currentTripState == .cancelledByRider)
    }

    @Test func compareAndSetLetsExactlyOneOfAcceptAndCancelWin() throws {
        let f = try StoreFixture()
        let rider = try f.makeRider()
        for round in 0..<20 {
            var booking = try f.store.create(f.newBooking(for: rider, at: round), idempotencyKey: nil).booking
            booking = try f.apply(.dispatch, to: booking.id, by: .system, at: round)
            let at = f.clockStart.adding(seconds: round + 5)
            var accepter = TripStateMachine(booking: booking, tariff: .standard)
            let accept = try #require(try accepter.handle(.accept(f.driver), by: .driver(f.driver), at: at).record)
            var canceller = TripStateMachine(booking: booking, tariff: .standard)
            let cancel = try #require(
                try canceller.handle(.riderCancel(reason: "race"), by: .rider(rider), at: at).record)
            let attempts: [(Booking, TripTransitionRecord)] = [(accepter.booking, accept), (canceller.booking, cancel)]
            let outcomes = Outcomes()
            let store = f.store
            runOnThreads(2) { i in
                do {
                    try store.transition(attempts[i].0, record: attempts[i].1)
                    outcomes.record(win: i)
                } catch let error as CoreError where error.code == .transitionConflict {
                    outcomes.record(loss: error.currentTripState)
                } catch {
                    outcomes.record(loss: nil)
                }
            }
            let (wins, losses) = outcomes.snapshot
            #expect(wins.count == 1 && losses.count == 1)
            let winner = try #require(wins.first)
            let stored = try #require(try f.store.booking(booking.id))
            #expect(stored.status == attempts[winner].1.to)
            #expect(losses.first == stored.status)  // the loser is told the state that won
            #expect(try f.store.history(booking.id).count == 3)  // book, dispatch, the winner
        }
    }

    @Test func anAcceptAfterACancelLosesWithTheCurrentState() throws {
        let f = try StoreFixture()
        let rider = try f.makeRider()
        let booking = try f.store.create(f.newBooking(for: rider), idempotencyKey: nil).booking
        _ = try f.apply(.dispatch, to: booking.id, by: .system, at: 1)
        _ = try f.apply(.riderCancel(reason: "changed plans"), to: booking.id, by: .rider(rider), at: 2)
        let error = #expect(throws: CoreError.self) {
            try f.apply(.accept(f.driver), to: booking.id, by: .driver(f.driver), at: 3)
        }
        #expect(error?.code == .illegalTransition && error?.currentTripState == .cancelledByRider)
        #expect(try f.store.booking(booking.id)?.driverID == nil)
    }
}

/// Collects the results of racing threads.
final class Outcomes: @unchecked Sendable {
    // @unchecked Sendable: every field is read and written under `lock`.
    private let lock = NSLock()
    private var wins: [Int] = []
    private var losses: [TripState?] = []

    func record(win: Int) { lock.withLock { wins.append(win) } }
    func record(loss: TripState?) { lock.withLock { losses.append(loss) } }
    var snapshot: ([Int], [TripState?]) { lock.withLock { (wins, losses) } }
}
