import CabGeo

/// A booking's route: distance, time and the line to draw.
public struct BookedRoute: Hashable, Sendable, Codable {
    /// Road distance in metres.
    public var distanceMeters: Double?
    /// Driving time in seconds.
    public var durationSeconds: Double?
    /// The route as an encoded polyline (precision 5).
    public var polyline: String?

    /// A route (tests and previews).
    public init(distanceMeters: Double? = nil, durationSeconds: Double? = nil, polyline: String? = nil) {
        self.distanceMeters = distanceMeters
        self.durationSeconds = durationSeconds
        self.polyline = polyline
    }

    enum CodingKeys: String, CodingKey {
        case distanceMeters = "distance_m"
        case durationSeconds = "duration_s"
        case polyline
    }
}

/// The assigned driver as a rider sees them.
public struct DriverInfo: Hashable, Sendable, Codable {
    /// The driver id.
    public var id: String
    /// The display name.
    public var name: String
    /// The car ("Toyota Prius").
    public var vehicle: String?
    /// The number plate.
    public var plate: String?

    /// A driver (tests and previews).
    public init(id: String, name: String, vehicle: String? = nil, plate: String? = nil) {
        self.id = id
        self.name = name
        self.vehicle = vehicle
        self.plate = plate
    }
}

/// How a booking was cancelled.
public struct Cancellation: Hashable, Sendable, Codable {
    /// The role that cancelled (`rider`, `driver`, `dispatcher`, `system`).
    public var by: String?
    /// Why, as given.
    public var reason: String?
    /// The cancellation fee charged, if any.
    public var fee: MoneyAmount?
}

/// The receipt of a completed trip (newer servers): what was driven and what it cost.
public struct Receipt: Hashable, Sendable, Codable {
    /// One line of the bill.
    public struct Line: Hashable, Sendable, Codable {
        /// What it is for.
        public var label: String
        /// How much.
        public var amount: MoneyAmount
    }
    /// The distance charged, in metres.
    public var distanceMeters: Double?
    /// The time charged, in seconds.
    public var durationSeconds: Double?
    /// What the distance came from (`trail`, `booked_route`).
    public var basis: String?
    /// The lines of the bill.
    public var lines: [Line]
    /// The total.
    public var total: MoneyAmount

    enum CodingKeys: String, CodingKey {
        case distanceMeters = "distance_m"
        case durationSeconds = "duration_s"
        case basis, lines, total
    }
}

/// A place from search or reverse geocoding (`GET /v1/places`, `GET /v1/places/reverse`).
public struct Place: Hashable, Sendable, Codable {
    /// The name ("Stockmann").
    public var name: String
    /// The street address, when known.
    public var address: String?
    /// The kind of place ("shop").
    public var category: String?
    /// Where it is.
    public var position: Coordinate
    /// Metres from the `near` point of the search.
    public var distanceMeters: Double?

    /// Creates a place.
    public init(name: String, address: String? = nil, position: Coordinate) {
        self.name = name
        self.address = address
        self.position = position
    }

    enum CodingKeys: String, CodingKey {
        case name, address, category, position
        case distanceMeters = "distance_m"
    }
}

/// The authenticated account (`GET /v1/me`).
public struct AccountInfo: Hashable, Sendable, Codable {
    /// `rider`, `driver` or `dispatcher`.
    public var role: String
    /// The account id.
    public var id: String
    /// The display name.
    public var name: String
    /// A driver's car.
    public var vehicle: String?
    /// A driver's number plate.
    public var plate: String?

    /// An account (tests and previews).
    public init(role: String, id: String, name: String, vehicle: String? = nil, plate: String? = nil) {
        self.role = role
        self.id = id
        self.name = name
        self.vehicle = vehicle
        self.plate = plate
    }
}

/// A trip offered to a driver (`event: offer` of `GET /v1/driver/stream`).
public struct TripOffer: Hashable, Sendable, Codable {
    /// The trip (booking) id.
    public var tripID: String
    /// Where the rider waits.
    public var pickup: Coordinate
    /// Where the rider goes.
    public var dropoff: Coordinate
    /// The pickup's name.
    public var pickupName: String?
    /// The drop-off's name.
    public var dropoffName: String?
    /// Seconds by road from the driver to the pickup.
    public var etaSeconds: Int?
    /// When the offer goes to someone else (RFC 3339).
    public var expiresAt: String

    /// An offer (tests and previews).
    public init(
        tripID: String, pickup: Coordinate, dropoff: Coordinate, pickupName: String? = nil, dropoffName: String? = nil,
        etaSeconds: Int? = nil, expiresAt: String
    ) {
        self.tripID = tripID
        self.pickup = pickup
        self.dropoff = dropoff
        self.pickupName = pickupName
        self.dropoffName = dropoffName
        self.etaSeconds = etaSeconds
        self.expiresAt = expiresAt
    }

    enum CodingKeys: String, CodingKey {
        case pickup, dropoff
        case tripID = "trip_id"
        case pickupName = "pickup_name"
        case dropoffName = "dropoff_name"
        case etaSeconds = "eta_s"
        case expiresAt = "expires_at"
    }
}

/// A car near the rider before booking (`GET /v1/cars/nearby`, newer servers): a coarse position, no identity.
public struct NearbyCar: Hashable, Sendable, Codable {
    /// Where it is, roughly.
    public var position: Coordinate
    /// Its heading in degrees, when known.
    public var heading: Double?

    /// A car (tests and previews).
    public init(position: Coordinate, heading: Double? = nil) {
        self.position = position
        self.heading = heading
    }
}
