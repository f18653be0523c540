/// An equirectangular projection to metres around a reference latitude: exact enough for the few
/// kilometres that snapping and nearest-neighbour searches look at.
public struct LocalProjection: Sendable {
    /// Metres per degree of latitude.
    public let metersPerDegreeLatitude: Double
    /// Metres per degree of longitude at the reference latitude.
    public let metersPerDegreeLongitude: Double

    /// A projection true at `latitude`.
    public init(referenceLatitude latitude: Double) {
        metersPerDegreeLatitude = radians(1) * earthRadiusMeters
        metersPerDegreeLongitude = metersPerDegreeLatitude * cosine(radians(latitude))
    }

    /// The planar offset of `point` from `origin`, in metres (x east, y north).
    @inline(__always)
    public func offsetMeters(of point: Coordinate, from origin: Coordinate) -> (x: Double, y: Double) {
        (
            (point.longitude - origin.longitude) * metersPerDegreeLongitude,
            (point.latitude - origin.latitude) * metersPerDegreeLatitude
        )
    }

    /// Projects `point` onto segment `a`-`b`: the nearest point on it, the fraction along it (0 ... 1) and the
    /// distance in metres.
    public func project(_ point: Coordinate, ontoSegmentFrom a: Coordinate, to b: Coordinate)
        -> (point: Coordinate, fraction: Double, distanceMeters: Double)
    {
        let (bx, by) = offsetMeters(of: b, from: a)
        let (px, py) = offsetMeters(of: point, from: a)
        let lengthSquared = bx * bx + by * by
        var t = lengthSquared > 0 ? (px * bx + py * by) / lengthSquared : 0
        t = min(1, max(0, t))
        let dx = px - t * bx
        let dy = py - t * by
        let projected = Coordinate(
            latitude: a.latitude + t * (b.latitude - a.latitude),
            longitude: a.longitude + t * (b.longitude - a.longitude))
        return (projected, t, (dx * dx + dy * dy).squareRoot())
    }
}
