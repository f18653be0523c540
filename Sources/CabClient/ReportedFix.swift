import CabGeo
import Foundation

/// A raw position from the device's location service.
public struct LocationSample: Hashable, Sendable {
    /// Where the device was.
    public var coordinate: Coordinate
    /// When it measured it.
    public var time: Date
    /// Horizontal accuracy radius in metres.
    public var accuracyMeters: Double
    /// Speed in metres per second, when known.
    public var speedMetersPerSecond: Double?
    /// Direction of travel in degrees clockwise from north, when known.
    public var headingDegrees: Double?

    /// Creates a sample.
    public init(
        coordinate: Coordinate, time: Date, accuracyMeters: Double, speedMetersPerSecond: Double? = nil,
        headingDegrees: Double? = nil
    ) {
        self.coordinate = coordinate
        self.time = time
        self.accuracyMeters = accuracyMeters
        self.speedMetersPerSecond = speedMetersPerSecond
        self.headingDegrees = headingDegrees
    }
}

/// A sample the reporter decided to send, numbered; encodes as the wire shape of `POST /v1/driver/locations`:
/// `{"lat", "lon", "time" (RFC 3339), "accuracy", "speed", "heading", "seq"}`.
public struct ReportedFix: Hashable, Sendable, Codable {
    /// The sample.
    public var sample: LocationSample
    /// The client's sequence number, increasing by one per fix across restarts.
    public var sequence: Int64

    /// Creates a fix.
    public init(_ sample: LocationSample, sequence: Int64) {
        self.sample = sample
        self.sequence = sequence
    }

    enum CodingKeys: String, CodingKey {
        case lat, lon, time, accuracy, speed, heading, seq
    }

    /// Decodes the wire shape.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let text = try c.decode(String.self, forKey: .time)
        guard let time = RFC3339.date(from: text) else {
            throw DecodingError.dataCorruptedError(forKey: .time, in: c, debugDescription: "not an RFC 3339 time")
        }
        sample = LocationSample(
            coordinate: Coordinate(
                latitude: try c.decode(Double.self, forKey: .lat), longitude: try c.decode(Double.self, forKey: .lon)),
            time: time, accuracyMeters: try c.decode(Double.self, forKey: .accuracy),
            speedMetersPerSecond: try c.decodeIfPresent(Double.self, forKey: .speed),
            headingDegrees: try c.decodeIfPresent(Double.self, forKey: .heading))
        sequence = try c.decode(Int64.self, forKey: .seq)
    }

    /// Encodes the wire shape.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(sample.coordinate.latitude, forKey: .lat)
        try c.encode(sample.coordinate.longitude, forKey: .lon)
        try c.encode(RFC3339.string(from: sample.time), forKey: .time)
        try c.encode(sample.accuracyMeters, forKey: .accuracy)
        try c.encodeIfPresent(sample.speedMetersPerSecond, forKey: .speed)
        try c.encodeIfPresent(sample.headingDegrees, forKey: .heading)
        try c.encode(sequence, forKey: .seq)
    }
}

/// RFC 3339 times in UTC with milliseconds (`2026-11-29T23:59:00.250Z`).
enum RFC3339 {
    static func string(from date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }

    static func date(from text: String) -> Date? {
        (try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(text))
            ?? (try? Date.ISO8601FormatStyle().parse(text))
    }
}
