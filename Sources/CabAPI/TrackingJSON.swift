import CabCore
import CabGeo
import CabTracking

/// The body of `POST /v1/driver/locations`: `{"fixes": [...]}`. It names no driver: the token does.
struct LocationBatchBody: Decodable {
    var fixes: [FixBody]
    /// Refused when it names anyone but the caller (clients must not believe they can post for others).
    var driverID: String?

    enum CodingKeys: String, CodingKey {
        case fixes
        case driverID = "driver_id"
    }
}

/// One fix on the wire: `{"lat", "lon", "time", "accuracy", "speed", "heading", "seq"}`.
struct FixBody: Decodable {
    var lat: Double
    var lon: Double
    var time: Instant
    var accuracy: Double?
    var speed: Double?
    var heading: Double?
    var seq: Int64?

    var fix: LocationFix {
        LocationFix(
            coordinate: Coordinate(latitude: lat, longitude: lon), timeMilliseconds: time.millisecondsSinceEpoch,
            accuracyMeters: accuracy ?? 0, speedMetersPerSecond: speed, headingDegrees: heading, sequence: seq)
    }
}

/// The answer to a batch: `{"accepted", "dropped": {"REASON": n}}` (only reasons that dropped any).
struct LocationReceiptJSON: Encodable {
    var accepted: Int
    var dropped: [String: Int]

    init(_ outcome: IngestOutcome) {
        accepted = outcome.accepted.count
        dropped = [:]
        for reason in DropReason.allCases where outcome.dropped[reason] > 0 {
            dropped[reason.rawValue] = outcome.dropped[reason]
        }
    }
}

/// A driver's latest position: `{"id", "position", "heading", "speed", "status", "vehicle_type", "updated_at"}`,
/// plus `distance_m` in nearby answers.
struct DriverLocationJSON: Encodable {
    var id: DriverID
    var position: Coordinate
    var heading: Int?
    var speed: Double?
    var status: String
    var vehicleType: String
    var updatedAt: Instant
    var distanceMeters: Double?

    init(_ id: DriverID, _ p: DriverPosition, distanceMeters: Double? = nil) {
        self.id = id
        position = p.coordinate
        heading = p.headingDegrees
        speed = p.speedMetersPerSecond
        status = p.status.name
        vehicleType = VehicleType(p.vehicleClass).rawValue
        updatedAt = Instant(millisecondsSinceEpoch: p.timeMilliseconds)
        self.distanceMeters = distanceMeters.map { ($0 * 10).rounded() / 10 }
    }

    enum CodingKeys: String, CodingKey {
        case id, position, heading, speed, status
        case vehicleType = "vehicle_type"
        case updatedAt = "updated_at"
        case distanceMeters = "distance_m"
    }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id)
        try c.encode(position, forKey: .position)
        try c.encode(heading, forKey: .heading)  // null when unknown, so clients see the field
        try c.encode(speed, forKey: .speed)
        try c.encode(status, forKey: .status)
        try c.encode(vehicleType, forKey: .vehicleType)
        try c.encode(updatedAt, forKey: .updatedAt)
        try c.encodeIfPresent(distanceMeters, forKey: .distanceMeters)
    }
}

/// `{"drivers": [...]}`.
struct NearbyDriversJSON: Encodable {
    var drivers: [DriverLocationJSON]
}
