import CabGeo
import CoreLocation
import MapKit

extension Coordinate {
    /// The same point as Core Location's type.
    public init(_ coordinate: CLLocationCoordinate2D) {
        self.init(latitude: coordinate.latitude, longitude: coordinate.longitude)
    }

    /// This point as Core Location's type.
    public var location: CLLocationCoordinate2D {
        CLLocationCoordinate2D(latitude: latitude, longitude: longitude)
    }
}

extension BoundingBox {
    /// The box a map region covers (what the search is near).
    public init(_ region: MKCoordinateRegion) {
        let c = region.center
        let s = region.span
        self.init(
            southWest: Coordinate(
                latitude: c.latitude - s.latitudeDelta / 2, longitude: c.longitude - s.longitudeDelta / 2),
            northEast: Coordinate(
                latitude: c.latitude + s.latitudeDelta / 2, longitude: c.longitude + s.longitudeDelta / 2))
    }
}
