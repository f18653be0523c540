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

/// A booking as a rider sees it (the fields an app needs; the server sends more).
public struct BookingSummary: Hashable, Sendable, Codable {
    /// The booking id.
    public var id: String
    /// The status (`requested`, `cancelled_by_rider`, …).
    public var status: String
    /// Where the rider is picked up.
    public var pickup: Coordinate
    /// Where the rider goes.
    public var dropoff: Coordinate
    /// The fare.
    public var fare: Fare?
    /// The path of the booking's QR code.
    public var qr: String?
    /// The four-digit code the rider tells the driver.
    public var pin: String?
    /// When it was booked (RFC 3339).
    public var createdAt: String?

    enum CodingKeys: String, CodingKey {
        case id, status, pickup, dropoff, fare, qr, pin
        case createdAt = "created_at"
    }
}

/// The server's answer to `POST /v1/driver/locations`.
public struct LocationsReceipt: Hashable, Sendable, Codable {
    /// Fixes applied.
    public var accepted: Int
    /// Fixes dropped, by reason (`duplicate`, `out_of_order`, …).
    public var dropped: [String: Int]
}
