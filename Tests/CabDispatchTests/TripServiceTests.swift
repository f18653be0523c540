import CabCore
import CabDispatch
import CabGeo
import CabTracking
import Foundation
import Synchronization
import Testing

/// The application alone, over in-memory ports (issue 14): no SQLite, no HTTP. A booking enters through the one
/// entry point, offers and trip notifications go out on the bus as typed values.
@Suite struct TripServiceTests {
    static let pickup = Coordinate(latitude: 60.1699, longitude: 24.9384)
    static let dropoff = Coordinate(latitude: 60.1841, longitude: 24.9501)

    /// Seconds by road as the crow flies at 10 m/s (dispatch only ranks by it).
    struct StraightLineETA: PickupETAEstimator {
        func durationsMilliseconds(from starts: [Coordinate], to end: Coordinate) -> [Int?] {
            starts.map { Int($0.distanceMeters(to: end) * 100) }
        }
    }

    /// Everything one audience heard, in order.
    final class Recorder: TripNotificationReceiver {
        let heard = Mutex<[TripNotification]>([])
        let finished = Mutex(false)
        func receive(_ notification: TripNotification) { heard.withLock { $0.append(notification) } }
        func finish() { finished.withLock { $0 = true } }
        var notifications: [TripNotification] { heard.withLock { $0 } }
    }

    /// The time the service reads (these tests never move it).
    static let now = Instant(millisecondsSinceEpoch: 1_780_000_000_000)

    final class World: Sendable {
        let store = InMemoryStore()
        let bus = InProcessTripBus()
        let fleet = LiveFleet<DriverID>()
        let service: DispatchCoordinator
        let driver = Driver(id: .random(), name: "Aino", vehicle: "Škoda", plate: "ABC-1", createdAt: .epoch)

        init() throws {
            service = DispatchCoordinator(
                store: store, fleet: fleet, eta: StraightLineETA(), tariff: .standard, bus: bus,
                now: { TripServiceTests.now })
            try store.createDriver(driver, tokenHash: TokenHash(bytes: Array(repeating: 1, count: 32)))
            let t = TripServiceTests.now.millisecondsSinceEpoch
            _ = fleet.ingest(
                [LocationFix(coordinate: TripServiceTests.pickup, timeMilliseconds: t, accuracyMeters: 5)],
                from: driver.id, now: t)
            try service.setOnline(driver.id, true)
        }

        /// A world, a new booking (not yet booked), and what its driver and its followers hear.
        static func listening() throws -> (World, Booking, driver: Recorder, trip: Recorder) {
            let w = try World()
            let booking = w.newBooking()
            let (driver, trip) = (Recorder(), Recorder())
            w.bus.subscribe(driver, to: .driver(w.driver.id))
            w.bus.subscribe(trip, to: .trip(booking.id))
            return (w, booking, driver, trip)
        }

        func newBooking() -> Booking {
            let at = TripServiceTests.now
            return Booking(
                id: .random(), riderID: .random(), pickup: TripServiceTests.pickup, dropoff: TripServiceTests.dropoff,
                routeDistanceMeters: 2_000, routeDurationSeconds: 300,
                fareEstimate: Money(minorUnits: 240, currency: .eur),
                pin: "1234", createdAt: at)
        }
    }

    @Test func aBookingIsStoredDispatchingAndOfferedOnTheBus() throws {
        let (w, booking, driverHears, riderHears) = try World.listening()

        let created = try w.service.book(booking, idempotencyKey: nil)
        w.service.waitForQueuedBookings()
        #expect(created.created && created.booking.status == .dispatching)
        #expect(try w.store.history(booking.id).map(\.event) == [.book, .dispatch])
        guard case .offer(let offer) = driverHears.notifications.first else {
            Issue.record("no offer: \(driverHears.notifications)")
            return
        }
        #expect(offer.tripID == booking.id && offer.pickup == Self.pickup)
        #expect(riderHears.notifications == [.status(booking.id, .dispatching, driver: nil, version: 2)])

        _ = try w.service.accept(booking.id, by: w.driver.id)
        #expect(driverHears.notifications.last == .assigned(booking.id, status: .accepted))
        #expect(
            Array(riderHears.notifications.suffix(2)) == [
                .status(booking.id, .accepted, driver: w.driver, version: 3), .driver(w.driver),
            ])
        #expect(try w.store.booking(booking.id)?.driverID == w.driver.id)
    }

    @Test func aRepeatedIdempotencyKeyBooksOnceAndOffersOnce() throws {
        let w = try World()
        let driverHears = Recorder()
        w.bus.subscribe(driverHears, to: .driver(w.driver.id))
        let key = IdempotencyKey(key: "k", requestFingerprint: "f")
        let booking = w.newBooking()
        #expect(try w.service.book(booking, idempotencyKey: key).created)
        var again = w.newBooking()
        again.riderID = booking.riderID
        let repeated = try w.service.book(again, idempotencyKey: key)
        w.service.waitForQueuedBookings()
        #expect(!repeated.created && repeated.booking.id == booking.id)
        #expect(driverHears.notifications.filter { if case .offer = $0 { true } else { false } }.count == 1)
    }

    @Test func theRidersCancelWithdrawsTheOfferAndEndsTheFollowers() throws {
        let (w, booking, driverHears, riderHears) = try World.listening()
        _ = try w.service.book(booking, idempotencyKey: nil)
        w.service.waitForQueuedBookings()

        let cancelled = try w.service.riderCancel(booking.id, by: .rider(booking.riderID), reason: "plans changed")
        #expect(cancelled.status == .cancelledByRider)
        #expect(driverHears.notifications.last == .offerWithdrawn(booking.id, reason: "cancelled"))
        #expect(riderHears.notifications.last == .status(booking.id, .cancelledByRider, driver: nil, version: 3))
        #expect(riderHears.finished.withLock { $0 })
        #expect(w.bus.receiverCount(of: .trip(booking.id)) == 0)
        #expect(!w.service.isOffered(booking.id, to: w.driver.id))
    }

    /// A rider's stream opening while the driver accepts (CI caught the rider stuck on "looking for a driver"
    /// with the driver on the way): the accept lands while the new follower reads the trip, and is heard as an
    /// event after the snapshot, not lost between the read and the subscription.
    @Test func aTransitionRacingANewFollowerIsInItsSnapshotOrItsEvents() throws {
        let w = try World()
        let booking = w.newBooking()
        _ = try w.service.book(booking, idempotencyKey: nil)
        w.service.waitForQueuedBookings()
        let follower = Recorder()
        let accepted = Recorder()  // `finished` marks the accept done
        var snapshot: Booking?
        let following = try w.service.follow(booking.id, with: follower) { stored in
            snapshot = stored
            // The driver's accept arrives on another thread, and is stored and announced, while the stream is
            // still sending the trip as it read it.
            Thread.detachNewThread {
                _ = try? w.service.accept(booking.id, by: w.driver.id)
                accepted.finish()
            }
            let deadline = ContinuousClock.now + .seconds(5)
            while !accepted.finished.withLock({ $0 }), ContinuousClock.now < deadline {
                Thread.sleep(forTimeInterval: 0.005)
            }
        }
        #expect(accepted.finished.withLock { $0 })
        #expect(following != nil)
        #expect(snapshot?.status == .dispatching && snapshot?.version == 2)
        #expect(follower.notifications.first == .status(booking.id, .accepted, driver: w.driver, version: 3))
        #expect(try w.store.booking(booking.id)?.version == 3)

        // A follower of a trip that is over follows nothing.
        _ = try w.service.riderCancel(booking.id, by: .rider(booking.riderID), reason: "plans changed")
        #expect(try w.service.follow(booking.id, with: Recorder()) { _ in } == nil)
        #expect(w.bus.receiverCount(of: .trip(booking.id)) == 0)
    }

    /// What a new follower holds until its snapshot is sent is passed on after it, a status only if newer; a
    /// trip that ends meanwhile ends the follower once it opens.
    @Test func aFollowerPassesOnOnlyNewerStatusesAfterItsSnapshot() {
        let trip = BookingID.random()
        let heard = Recorder()
        let follower = TripFollower(heard)
        follower.receive(.status(trip, .accepted, driver: nil, version: 3))  // already in the snapshot
        follower.receive(.pickupETA(seconds: 90))
        follower.receive(.status(trip, .arriving, driver: nil, version: 4))
        follower.finish()
        #expect(heard.notifications.isEmpty && !heard.finished.withLock { $0 })
        follower.open(after: 3)
        #expect(heard.notifications == [.pickupETA(seconds: 90), .status(trip, .arriving, driver: nil, version: 4)])
        #expect(heard.finished.withLock { $0 })

        let late = Recorder()
        let open = TripFollower(late)
        open.open(after: 5)
        open.receive(.status(trip, .arrived, driver: nil, version: 5))  // arrived late from another node
        open.receive(.status(trip, .inProgress, driver: nil, version: 6))
        open.receive(.status(trip, .arrived, driver: nil, version: 5))
        open.receive(.status(trip, .inProgress, driver: nil, version: 0))  // a node that sends no version
        #expect(
            late.notifications == [
                .status(trip, .inProgress, driver: nil, version: 6),
                .status(trip, .inProgress, driver: nil, version: 0),
            ])
    }

    @Test func theBusDeliversToItsAudienceOnly() {
        let bus = InProcessTripBus()
        let a = Recorder()
        let b = Recorder()
        let trip = BookingID.random()
        bus.subscribe(a, to: .trip(trip))
        bus.subscribe(b, to: .trip(.random()))
        bus.publish(.pickupETA(seconds: 60), to: .trip(trip))
        #expect(a.notifications == [.pickupETA(seconds: 60)] && b.notifications.isEmpty)
        bus.unsubscribe(a, from: .trip(trip))
        bus.publish(.pickupETA(seconds: 30), to: .trip(trip))
        #expect(a.notifications.count == 1 && !a.finished.withLock { $0 })
    }
}
