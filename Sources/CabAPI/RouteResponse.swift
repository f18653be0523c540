import CabDispatch
import CabGeo

/// The JSON answer for a route (`GET /v1/route`), also embedded in estimates and bookings.
struct RouteResponse: Encodable, Sendable {
    var distanceMeters: Double
    var durationSeconds: Double
    var from: Coordinate
    var to: Coordinate
    var geometry: GeoJSONLineString
    var polyline: String

    init(_ plan: RoutePlan) {
        distanceMeters = (plan.route.distanceMeters * 10).rounded() / 10
        durationSeconds = Double(plan.route.durationMilliseconds) / 1000
        from = plan.start
        to = plan.end
        geometry = GeoJSONLineString(plan.route.geometry)
        polyline = Polyline.encode(plan.route.geometry)
    }

    enum CodingKeys: String, CodingKey {
        case distanceMeters = "distance_m"
        case durationSeconds = "duration_s"
        case from, to, geometry, polyline
    }
}

extension RouteResponse {
    /// The same JSON as the `Encodable` conformance (sorted keys), written by hand: `JSONEncoder` spent most of a
    /// `/v1/route` request on the geometry's numbers.
    func jsonBytes() -> [UInt8] {
        var out = JSONText(capacity: 64 + geometry.coordinates.count * 48 + polyline.utf8.count)
        out.raw("{")
        out.key("distance_m", first: true)
        out.number(distanceMeters)
        out.key("duration_s")
        out.number(durationSeconds)
        out.key("from")
        out.coordinate(from)
        out.key("geometry")
        out.lineString(geometry)
        out.key("polyline")
        out.string(polyline)
        out.key("to")
        out.coordinate(to)
        out.raw("}")
        return out.bytes
    }
}
