import CabAppModels
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
    /// The box a map region covers (what the search is near); the arithmetic is CabAppModels', tested on Linux.
    public init(_ region: MKCoordinateRegion) {
        self.init(
            center: Coordinate(region.center), latitudeDelta: region.span.latitudeDelta,
            longitudeDelta: region.span.longitudeDelta)
    }
}
