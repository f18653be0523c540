import CabGeo

/// A new account's id and bearer token (`POST /v1/riders`, `POST /v1/drivers`).
public struct AccountCredentials: Hashable, Sendable, Codable {
    /// The account id (`rd_…` or `dr_…`).
    public var id: String
    /// The display name.
    public var name: String
    /// The bearer token; shown once, keep it secret.
    public var token: String
}

/// An amount of money as the API sends it: `{"amount_minor", "currency", "display"}`.
public struct MoneyAmount: Hashable, Sendable, Codable {
    /// The amount in minor units (1440 = 14.40).
    public var amountMinor: Int64
    /// The ISO 4217 code.
    public var currency: String
    /// Ready to show ("14.40 EUR").
    public var display: String?

    /// An amount (tests and previews).
    public init(amountMinor: Int64, currency: String, display: String? = nil) {
        self.amountMinor = amountMinor
        self.currency = currency
        self.display = display
    }

    enum CodingKeys: String, CodingKey {
        case amountMinor = "amount_minor"
        case currency, display
    }
}

/// A fare: the total and its lines.
public struct Fare: Hashable, Sendable, Codable {
    /// One line of the breakdown.
    public struct Line: Hashable, Sendable, Codable {
        /// What it is for ("distance").
        public var label: String
        /// How much.
        public var amount: MoneyAmount
    }
    /// The total.
    public var total: MoneyAmount
    /// The breakdown.
    public var lines: [Line]?

    /// A fare (tests and previews).
    public init(total: MoneyAmount, lines: [Line]? = nil) {
        self.total = total
        self.lines = lines
    }
}

/// A route and fare estimate (`POST /v1/estimates`).
public struct FareEstimate: Hashable, Sendable, Codable {
    /// Road distance in metres.
    public var distanceMeters: Double
    /// Driving time in seconds.
    public var durationSeconds: Double
    /// The route as an encoded polyline (precision 5).
    public var polyline: String?
    /// The fare.
    public var fare: Fare

    enum CodingKeys: String, CodingKey {
        case distanceMeters = "distance_m"
        case durationSeconds = "duration_s"
        case polyline, fare
    }
}

/// A booking as a rider or driver sees it (the fields an app needs; the server sends more). Fields added after
/// issue 7 (`receipt`, `redispatch_count`, `late`, `rating`) are optional: older servers leave them out.
public struct BookingSummary: Hashable, Sendable, Codable {
    /// The booking id.
    public var id: String
    /// The status (`requested`, `cancelled_by_rider`, …).
    public var status: String
    /// Where the rider is picked up.
    public var pickup: Coordinate
    /// Where the rider goes.
    public var dropoff: Coordinate
    /// The pickup's name, when the rider gave one.
    public var pickupName: String?
    /// The drop-off's name, when the rider gave one.
    public var dropoffName: String?
    /// The fare.
    public var fare: Fare?
    /// The fare computed at completion from the driven trail.
    public var finalFare: Fare?
    /// The booked route.
    public var route: BookedRoute?
    /// The assigned driver, once there is one.
    public var driver: DriverInfo?
    /// The path of the booking's QR code.
    public var qr: String?
    /// What the QR code encodes (`<booking id>.<secret>`), for an app that draws the code on the device; only the
    /// rider and dispatchers get it.
    public var qrCode: String?
    /// The four-digit code the rider tells the driver.
    public var pin: String?
    /// When it was booked (RFC 3339).
    public var createdAt: String?
    /// When the driver promised to be at the pickup (RFC 3339).
    public var promisedPickupAt: String?
    /// When the ride started, by the server's clock (RFC 3339).
    public var actualPickupAt: String?
    /// How the trip was cancelled, if it was.
    public var cancellation: Cancellation?
    /// The receipt of a completed trip (newer servers).
    public var receipt: Receipt?
    /// How often the trip was handed to another driver (newer servers).
    public var redispatchCount: Int?
    /// Whether the pickup is overdue (newer servers).
    public var late: Bool?
    /// The rider's rating of the driver (newer servers): `{"stars": 1...5, "comment"}`.
    public var rating: Rating?

    /// A rider's rating of the trip's driver.
    public struct Rating: Hashable, Sendable, Codable {
        /// 1 to 5.
        public var stars: Int
        /// What the rider wrote, if anything.
        public var comment: String?
    }

    /// A booking with the required fields (tests and previews).
    public init(id: String, status: String, pickup: Coordinate, dropoff: Coordinate, fare: Fare? = nil) {
        self.id = id
        self.status = status
        self.pickup = pickup
        self.dropoff = dropoff
        self.fare = fare
    }

    enum CodingKeys: String, CodingKey {
        case id, status, pickup, dropoff, fare, route, driver, qr, pin, cancellation, receipt, late, rating
        case pickupName = "pickup_name"
        case dropoffName = "dropoff_name"
        case finalFare = "final_fare"
        case createdAt = "created_at"
        case promisedPickupAt = "promised_pickup_at"
        case actualPickupAt = "actual_pickup_at"
        case redispatchCount = "redispatch_count"
        case qrCode = "qr_code"
    }
}

/// The server's answer to `POST /v1/driver/locations`.
public struct LocationsReceipt: Hashable, Sendable, Codable {
    /// Fixes applied.
    public var accepted: Int
    /// Fixes dropped, by reason (`duplicate`, `out_of_order`, …).
    public var dropped: [String: Int]
}
