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
