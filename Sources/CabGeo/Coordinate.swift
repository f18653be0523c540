/// A point on the WGS 84 ellipsoid, in degrees.
///
/// Encodes as `{"lat": 60.1699, "lon": 24.9384}`, the shape every SwiftCab API uses for points.
public struct Coordinate: Hashable, Sendable, Codable, CustomStringConvertible {
    /// Degrees north of the equator, -90 ... 90.
    public var latitude: Double
    /// Degrees east of Greenwich, -180 ... 180.
    public var longitude: Double

    /// Creates a coordinate; it may be invalid (see `isValid`).
    public init(latitude: Double, longitude: Double) {
        self.latitude = latitude
        self.longitude = longitude
    }

    /// True when both parts are finite and in range.
    public var isValid: Bool {
        latitude.isFinite && longitude.isFinite && (-90...90).contains(latitude) && (-180...180).contains(longitude)
    }

    /// `LAT,LON` with up to 7 decimals.
    public var description: String { "\(latitude),\(longitude)" }

    enum CodingKeys: String, CodingKey {
        case latitude = "lat"
        case longitude = "lon"
    }
}

extension Coordinate {
    /// Parses `LAT,LON` (as in `?from=60.17,24.94`); nil when malformed. Range is not checked: see `isValid`.
    public init?(parsing text: some StringProtocol) {
        let parts = Substring(text).split(separator: ",", omittingEmptySubsequences: false)
        guard parts.count == 2,
            let lat = Double(parts[0].trimmingSpaces()),
            let lon = Double(parts[1].trimmingSpaces())
        else { return nil }
        self.init(latitude: lat, longitude: lon)
    }
}

extension Substring {
    fileprivate func trimmingSpaces() -> Substring {
        var s = self
        while s.first == " " { s.removeFirst() }
        while s.last == " " { s.removeLast() }
        return s
    }
}
