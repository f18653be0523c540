/// An axis-aligned box in degrees (does not cross the antimeridian).
public struct BoundingBox: Hashable, Sendable, Codable {
    /// The south-west corner.
    public var southWest: Coordinate
    /// The north-east corner.
    public var northEast: Coordinate

    /// Creates a box from its corners.
    public init(southWest: Coordinate, northEast: Coordinate) {
        self.southWest = southWest
        self.northEast = northEast
    }

    /// The smallest box around `points`; nil when there are none.
    public init?(enclosing points: some Sequence<Coordinate>) {
        var it = points.makeIterator()
        guard let first = it.next() else { return nil }
        var box = BoundingBox(southWest: first, northEast: first)
        while let p = it.next() { box.extend(to: p) }
        self = box
    }

    /// Grows the box to hold `point`.
    public mutating func extend(to point: Coordinate) {
        southWest.latitude = min(southWest.latitude, point.latitude)
        southWest.longitude = min(southWest.longitude, point.longitude)
        northEast.latitude = max(northEast.latitude, point.latitude)
        northEast.longitude = max(northEast.longitude, point.longitude)
    }

    /// True when `point` is inside or on the edge.
    public func contains(_ point: Coordinate) -> Bool {
        (southWest.latitude...northEast.latitude).contains(point.latitude)
            && (southWest.longitude...northEast.longitude).contains(point.longitude)
    }

    /// The box grown by `meters` on every side.
    public func expanded(byMeters meters: Double) -> BoundingBox {
        let dLat = degrees(meters / earthRadiusMeters)
        let midLat = radians((southWest.latitude + northEast.latitude) / 2)
        let dLon = dLat / max(cosine(midLat), 0.01)
        return BoundingBox(
            southWest: Coordinate(latitude: southWest.latitude - dLat, longitude: southWest.longitude - dLon),
            northEast: Coordinate(latitude: northEast.latitude + dLat, longitude: northEast.longitude + dLon))
    }

    /// The centre point.
    public var center: Coordinate {
        Coordinate(
            latitude: (southWest.latitude + northEast.latitude) / 2,
            longitude: (southWest.longitude + northEast.longitude) / 2)
    }

    /// Parses `minLon,minLat,maxLon,maxLat` (the GeoJSON `bbox` order); nil when malformed or inverted.
    public init?(parsing text: some StringProtocol) {
        let parts = text.split(separator: ",").compactMap { Double($0) }
        guard parts.count == 4, parts[0] <= parts[2], parts[1] <= parts[3] else { return nil }
        self.init(
            southWest: Coordinate(latitude: parts[1], longitude: parts[0]),
            northEast: Coordinate(latitude: parts[3], longitude: parts[2]))
        guard southWest.isValid, northEast.isValid else { return nil }
    }
}
