import CabCore
import CabGeo
import CabHTTP
import CabStore
import CabTracking

/// The body of `POST /v1/driver/locations`: `{"fixes": [...]}`. It names no driver: the token does.
/// Read by hand (`JSONBodyDecodable`): the busiest endpoint of a city's fleet.
struct LocationBatchBody: Decodable, JSONBodyDecodable {
    var fixes: [FixBody]
    /// Refused when it names anyone but the caller (clients must not believe they can post for others).
    var driverID: String?

    enum CodingKeys: String, CodingKey {
        case fixes
        case driverID = "driver_id"
    }

    init(json: JSONField) throws(HTTPError) {
        var fixes: [FixBody] = []
        for element in try json.required("fixes").elements() { fixes.append(try FixBody(json: element)) }
        self.fixes = fixes
        driverID = try json.optional("driver_id")?.string()
    }
}

/// One fix on the wire: `{"lat", "lon", "time", "accuracy", "speed", "heading", "seq"}`.
struct FixBody: Decodable, JSONBodyDecodable {
    var lat: Double
    var lon: Double
    var time: Instant
    var accuracy: Double?
    var speed: Double?
    var heading: Double?
    var seq: Int64?

    init(json: JSONField) throws(HTTPError) {
        lat = try json.required("lat").double()
        lon = try json.required("lon").double()
        let timeField = try json.required("time")
        guard let time = RFC3339.parse(try timeField.string()) else {
            throw timeField.invalid("not an RFC 3339 time such as 2026-05-01T12:00:00Z")
        }
        self.time = time
        accuracy = try json.optional("accuracy")?.double()
        speed = try json.optional("speed")?.double()
        heading = try json.optional("heading")?.double()
        // Browsers send `null` for an unknown speed or heading; a sequence number is never unknown.
        seq = try json.nonNull("seq", expected: "a whole number from 0")?.int64()
        if let violation = FixRanges.violation(in: fix) {
            throw json.outOfRange(Self.wireName(violation.field), allowed: violation.allowed)
        }
    }

    /// The member name of `field` in this body.
    static func wireName(_ field: FixRanges.Field) -> String {
        switch field {
        case .time: "time"
        case .accuracy: "accuracy"
        case .speed: "speed"
        case .heading: "heading"
        case .sequence: "seq"
        }
    }

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

    /// The same bytes as `JSONCoding.encoder` writes (sorted keys), written by hand.
    var response: HTTPResponse {
        var json = JSONText(capacity: 64)
        json.raw("{")
        json.key("accepted", first: true)
        json.integer(accepted)
        json.key("dropped")
        json.raw("{")
        for (i, name) in dropped.keys.sorted().enumerated() {
            json.key(name, first: i == 0)
            json.integer(dropped[name] ?? 0)
        }
        json.raw("}}")
        return .bytes(json.bytes, contentType: "application/json")
    }
}

/// A driver's latest position: `{"id", "position", "heading", "speed", "status", "vehicle_type", "updated_at"}`,
/// plus `distance_m`, `name` and `plate` in nearby answers.
struct DriverLocationJSON: Encodable {
    var id: DriverID
    var position: Coordinate
    var heading: Int?
    var speed: Double?
    var status: String
    var vehicleType: String
    var updatedAt: Instant
    var distanceMeters: Double?
    /// The driver's name and plate, for a dispatcher's list (`GET /v1/drivers/nearby`); absent elsewhere.
    var name: String?
    var plate: String?

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
        case name, plate
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
        try c.encodeIfPresent(name, forKey: .name)
        try c.encodeIfPresent(plate, forKey: .plate)
    }
}

/// `{"drivers": [...]}`.
struct NearbyDriversJSON: Encodable {
    var drivers: [RatedDriverJSON]
}

/// A driver of `GET /v1/drivers/nearby` with their riders' rating: `rating` (mean stars, 1 decimal; null when
/// none) and `ratings_count`, beside the fields of `DriverLocationJSON`.
struct RatedDriverJSON: Encodable {
    var location: DriverLocationJSON
    var rating: Double?
    var ratingsCount: Int

    init(_ location: DriverLocationJSON, _ summary: DriverRatingSummary?) {
        self.location = location
        rating = summary.map { ($0.average * 10).rounded() / 10 }
        ratingsCount = summary?.count ?? 0
    }

    func encode(to encoder: any Encoder) throws {
        try location.encode(to: encoder)
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(rating, forKey: .rating)
        try c.encode(ratingsCount, forKey: .ratingsCount)
    }

    enum CodingKeys: String, CodingKey {
        case rating
        case ratingsCount = "ratings_count"
    }
}
