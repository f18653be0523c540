/// A GeoJSON `LineString` geometry (RFC 7946): positions are `[lon, lat]`.
public struct GeoJSONLineString: Hashable, Sendable, Codable {
    /// Always "LineString".
    public var type: String = "LineString"
    /// The positions, longitude first.
    public var coordinates: [[Double]]

    /// The line through `points`.
    public init(_ points: [Coordinate]) {
        coordinates = points.map { [$0.longitude, $0.latitude] }
    }
}
