import CabGeo

@testable import CabCore

/// Bookings in any state, with a fixed rider, driver and clock, for the state machine tests.
enum Fixtures {
    static let rider = RiderID(randomBytes: Array(repeating: 1, count: 10))
    static let otherRider = RiderID(randomBytes: Array(repeating: 2, count: 10))
    static let driver = DriverID(randomBytes: Array(repeating: 3, count: 10))
    static let otherDriver = DriverID(randomBytes: Array(repeating: 4, count: 10))
    static let dispatcher = DispatcherID(randomBytes: Array(repeating: 5, count: 10))
    static let bookingID = BookingID(randomBytes: [0xde, 0xad, 0xbe, 0xef, 0, 1, 2, 3, 4, 5])
    static let created = Instant(millisecondsSinceEpoch: 1_780_000_000_000)

    static func tariff(cancellationFee: Int64 = 500, graceSeconds: Int = 120) -> Tariff {
        // try! cannot fail: all amounts are small non-negative literals.
        try! Tariff(
            currency: .eur, perKilometer: 120, cancellationFee: cancellationFee,
            cancellationGraceSeconds: graceSeconds)
    }

    /// A booking as it would stand in `state`, with the timestamps that state implies.
    static func booking(in state: TripState, promisedPickupAt: Instant? = nil) -> Booking {
        var b = Booking(
            id: bookingID, riderID: rider, pickup: Coordinate(latitude: 60.1699, longitude: 24.9384),
            pickupName: "Kamppi", dropoff: Coordinate(latitude: 60.2055, longitude: 24.6559), dropoffName: nil,
            routeDistanceMeters: 10_000, routeDurationSeconds: 900,
            fareEstimate: Money(minorUnits: 1200, currency: .eur),
            pin: "0427", promisedPickupAt: promisedPickupAt, createdAt: created)
        b.status = state
        let assigned: Set<TripState> = [.accepted, .arriving, .arrived, .inProgress, .completed, .cancelledByDriver]
        if assigned.contains(state) {
            b.driverID = driver
            b.acceptedAt = created.adding(seconds: 30)
        }
        if [.arrived, .inProgress, .completed].contains(state) { b.arrivedAt = created.adding(seconds: 300) }
        b.statusChangedAt = created.adding(seconds: 300)
        return b
    }

    /// The canonical command for `event` and an actor the table allows for it.
    static func command(for event: TripEvent) -> (TripCommand, Principal)? {
        switch event {
        case .book: nil
        case .dispatch: (.dispatch, .system)
        case .expire: (.expire, .system)
        case .assign: (.assign(driver), .dispatcher(dispatcher))
        case .accept: (.accept(driver), .driver(driver))
        case .noDriverFound: (.noDriverFound, .system)
        case .depart: (.depart, .driver(driver))
        case .arrive: (.arrive, .driver(driver))
        case .start: (.start(code: "0427"), .driver(driver))
        case .complete: (.complete(distanceMeters: 12_345, durationSeconds: 1_000), .driver(driver))
        case .riderCancel: (.riderCancel(reason: "changed my mind"), .rider(rider))
        case .driverCancel: (.driverCancel(reason: "flat tyre"), .dispatcher(dispatcher))
        case .noShow: (.noShow, .system)
        case .redispatch: (.redispatch(reason: .driverCancelled), .driver(driver))
        }
    }
}
