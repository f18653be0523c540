import CabGeo

/// A coordinate moved onto the nearest road: the projected point on a piece of road and how far along it.
public struct SnappedPoint: Sendable, Hashable {
    /// The coordinate that was asked for.
    public var query: Coordinate
    /// The nearest point on the road.
    public var coordinate: Coordinate
    /// The piece of road (see `RoadGraph`).
    public var piece: Int
    /// The segment of the piece holding the point: between coordinates `segment` and `segment + 1` of the piece.
    public var segment: Int
    /// How far along the piece the point is, by length: 0 at its first coordinate, 1 at its last.
    public var fraction: Double
    /// Metres from `query` to `coordinate`.
    public var distanceMeters: Double

    /// Creates a snapped point.
    public init(
        query: Coordinate, coordinate: Coordinate, piece: Int, segment: Int, fraction: Double, distanceMeters: Double
    ) {
        self.query = query
        self.coordinate = coordinate
        self.piece = piece
        self.segment = segment
        self.fraction = fraction
        self.distanceMeters = distanceMeters
    }
}
