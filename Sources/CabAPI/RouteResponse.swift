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
        var out = ""
        out.reserveCapacity(64 + geometry.coordinates.count * 48 + polyline.utf8.count)
        out += "{\"distance_m\":\(Self.number(distanceMeters)),\"duration_s\":\(Self.number(durationSeconds)),"
        out += "\"from\":\(Self.point(from)),\"geometry\":{\"coordinates\":["
        for (i, position) in geometry.coordinates.enumerated() {
            if i > 0 { out += "," }
            out += "[\(Self.number(position[0])),\(Self.number(position[1]))]"
        }
        out += "],\"type\":\"LineString\"},\"polyline\":\""
        for scalar in polyline.unicodeScalars {
            // Polyline characters are ASCII 63...126; only the backslash needs escaping in JSON.
            if scalar == "\\" { out += "\\\\" } else { out.unicodeScalars.append(scalar) }
        }
        out += "\",\"to\":\(Self.point(to))}"
        return Array(out.utf8)
    }

    private static func point(_ c: Coordinate) -> String {
        "{\"lat\":\(number(c.latitude)),\"lon\":\(number(c.longitude))}"
    }

    /// A finite number as JSON (Swift's shortest round-tripping form); non-finite values cannot occur in a route.
    private static func number(_ x: Double) -> String {
        precondition(x.isFinite, "route numbers are finite")
        if x == x.rounded(), abs(x) < 1e15 { return String(Int64(x)) }
        return x.description
    }
}
