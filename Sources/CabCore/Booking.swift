import CabGeo

/// A ride booked by a rider: where, how far, for how much, and everything that happened to it since.
///
/// Bookings are never deleted: a cancelled one keeps who cancelled, when, why and the fee.
public struct Booking: Hashable, Sendable, Codable {
    /// Its id (also the QR payload).
    public var id: BookingID
    /// Who booked.
    public var riderID: RiderID
    /// Where to pick up.
    public var pickup: Coordinate
    /// A name for the pickup, as the rider chose it.
    public var pickupName: String?
    /// Where to drop off.
    public var dropoff: Coordinate
    /// A name for the drop-off.
    public var dropoffName: String?
    /// The routed distance at booking, metres.
    public var routeDistanceMeters: Int
    /// The routed duration at booking, seconds.
    public var routeDurationSeconds: Int
    /// The fare estimated at booking from the route.
    public var fareEstimate: Money
    /// The route priced at booking, as an encoded polyline (precision 5); nil for bookings stored without one.
    public var routePolyline: String?
    /// The vehicle type asked for, if any.
    public var vehicleType: VehicleType?
    /// The current state.
    public var status: TripState
    /// When it was booked.
    public var createdAt: Instant
    /// When it entered `status` (timeouts count from here).
    public var statusChangedAt: Instant
    /// Four digits the rider tells the driver to start the trip.
    public var pin: String
    /// The pickup time promised to the rider, if any.
    public var promisedPickupAt: Instant?
    /// The driver who accepted or was assigned.
    public var driverID: DriverID?
    /// When a driver accepted.
    public var acceptedAt: Instant?
    /// When the driver reached the pickup.
    public var arrivedAt: Instant?
    /// When the rider got in (the actual pickup time).
    public var pickedUpAt: Instant?
    /// When the rider was dropped off.
    public var completedAt: Instant?
    /// The fare charged at completion, from the distance and time actually driven.
    public var finalFare: Money?
    /// Who cancelled, when, why and for what fee.
    public var cancellation: Cancellation?
    /// How many times the trip went back to dispatch after a driver had it (`redispatch`).
    public var redispatchCount: Int = 0
    /// When the pickup first went overdue; the trip counts as late from then on, whatever happens next.
    public var pickupOverdueAt: Instant?
    /// What the final fare was computed from; nil until completed.
    public var receipt: TripReceipt?
    /// The rider's rating of the trip; nil until rated.
    public var rating: TripRating?
    /// The trip's version: how many transitions it has had, the booking itself counted (1 when booked). Each
    /// stored transition raises it by one and the store compares it (so a trip that went back to a state it
    /// had is not mistaken for its older self); a stream sends it with each status, and a follower ignores a
    /// status not newer than the one it has.
    public var version: Int = 1

    /// Creates a new booking in `requested`, with `createdAt` as its status time.
    public init(
        id: BookingID, riderID: RiderID, pickup: Coordinate, pickupName: String? = nil, dropoff: Coordinate,
        dropoffName: String? = nil, routeDistanceMeters: Int, routeDurationSeconds: Int, fareEstimate: Money,
        vehicleType: VehicleType? = nil, pin: String, promisedPickupAt: Instant? = nil, createdAt: Instant,
        routePolyline: String? = nil
    ) {
        precondition(Booking.isValidPIN(pin), "a PIN is four digits")
        self.id = id
        self.riderID = riderID
        self.pickup = pickup
        self.pickupName = pickupName
        self.dropoff = dropoff
        self.dropoffName = dropoffName
        self.routeDistanceMeters = routeDistanceMeters
        self.routeDurationSeconds = routeDurationSeconds
        self.fareEstimate = fareEstimate
        self.routePolyline = routePolyline
        self.vehicleType = vehicleType
        self.status = .requested
        self.createdAt = createdAt
        self.statusChangedAt = createdAt
        self.pin = pin
        self.promisedPickupAt = promisedPickupAt
    }

    /// True when the pickup is late at `now`: it went overdue once, or the driver reached the pickup after the
    /// promised time, or (still on the way) the promised time has passed.
    public func isLate(at now: Instant) -> Bool {
        if pickupOverdueAt != nil { return true }
        guard let promised = promisedPickupAt else { return false }
        if let reached = arrivedAt ?? pickedUpAt { return reached > promised }
        return (status == .accepted || status == .arriving) && now > promised
    }

    /// True for exactly four ASCII digits.
    public static func isValidPIN(_ pin: String) -> Bool {
        pin.utf8.count == 4 && pin.utf8.allSatisfy { $0 >= 48 && $0 <= 57 }
    }

    /// A random four-digit PIN ("0000" to "9999").
    public static func randomPIN(using generator: inout some RandomNumberGenerator) -> String {
        let n = Int.random(in: 0..<10_000, using: &generator)
        let digits = String(n)
        return String(repeating: "0", count: 4 - digits.count) + digits
    }

    enum CodingKeys: String, CodingKey {
        case id, pickup, dropoff, status, pin, cancellation
        case riderID = "rider_id"
        case pickupName = "pickup_name"
        case dropoffName = "dropoff_name"
        case routeDistanceMeters = "route_distance_m"
        case routeDurationSeconds = "route_duration_s"
        case fareEstimate = "fare_estimate"
        case routePolyline = "route_polyline"
        case vehicleType = "vehicle_type"
        case createdAt = "created_at"
        case statusChangedAt = "status_changed_at"
        case promisedPickupAt = "promised_pickup_at"
        case driverID = "driver_id"
        case acceptedAt = "accepted_at"
        case arrivedAt = "arrived_at"
        case pickedUpAt = "picked_up_at"
        case completedAt = "completed_at"
        case finalFare = "final_fare"
        case redispatchCount = "redispatch_count"
        case pickupOverdueAt = "pickup_overdue_at"
        case receipt, rating, version
    }
}

/// Who cancelled a booking, when, why, and the fee charged to the rider.
public struct Cancellation: Hashable, Sendable, Codable {
    /// Who cancelled (the system for a no-show it detected).
    public var by: Principal
    /// When.
    public var at: Instant
    /// Why, in the canceller's words (or `no_show`).
    public var reason: String
    /// The fee charged to the rider (zero when free).
    public var fee: Money

    /// Creates a record.
    public init(by: Principal, at: Instant, reason: String, fee: Money) {
        self.by = by
        self.at = at
        self.reason = reason
        self.fee = fee
    }
}

/// The kind of vehicle a driver drives and a rider may ask for.
public enum VehicleType: String, Hashable, Sendable, Codable, CaseIterable {
    /// An ordinary car for up to four.
    case standard
    /// Room for six or more, or luggage.
    case large
    /// Wheelchair accessible.
    case accessible
    /// A premium car.
    case premium
}
