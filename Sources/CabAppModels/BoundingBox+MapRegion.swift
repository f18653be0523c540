import CabGeo

extension BoundingBox {
    /// The box a map shows, from its centre and its span in degrees (MapKit's `MKCoordinateRegion`), kept inside
    /// the valid range of latitudes and longitudes (a zoomed-out map can span more than the world). A region
    /// across the antimeridian keeps the side of its centre: a box does not cross it.
    public init(center: Coordinate, latitudeDelta: Double, longitudeDelta: Double) {
        let halfLatitude = max(0, latitudeDelta) / 2
        let halfLongitude = longitudeDelta >= 360 ? 360 : max(0, longitudeDelta) / 2
        self.init(
            southWest: Coordinate(
                latitude: max(-90, center.latitude - halfLatitude),
                longitude: max(-180, center.longitude - halfLongitude)),
            northEast: Coordinate(
                latitude: min(90, center.latitude + halfLatitude),
                longitude: min(180, center.longitude + halfLongitude)))
    }
}
