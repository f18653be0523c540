import CabGeo
import CabHTTP

extension HTTPRequest {
    /// The query parameter `name` as `LAT,LON`, or a 400 problem saying what to fix.
    func coordinateParameter(_ name: String) throws(HTTPError) -> Coordinate {
        guard let text = query[name], !text.isEmpty else {
            throw .badRequest("The query parameter '\(name)' is missing; give it as \(name)=LAT,LON.", title: "Missing parameter")
        }
        guard let c = Coordinate(parsing: text) else {
            throw .badRequest("'\(name)' must be LAT,LON in decimal degrees (e.g. 60.1699,24.9384).", title: "Invalid coordinate")
        }
        try Self.validate(c, name)
        return c
    }

    /// Two query parameters `lat` and `lon` as a coordinate, or a 400 problem.
    func coordinateParameters(lat: String = "lat", lon: String = "lon") throws(HTTPError) -> Coordinate {
        guard let latText = query[lat], let lonText = query[lon] else {
            throw .badRequest("The query parameters '\(lat)' and '\(lon)' are required.", title: "Missing parameter")
        }
        guard let la = Double(latText), let lo = Double(lonText) else {
            throw .badRequest("'\(lat)' and '\(lon)' must be decimal degrees.", title: "Invalid coordinate")
        }
        let c = Coordinate(latitude: la, longitude: lo)
        try Self.validate(c, "\(lat),\(lon)")
        return c
    }

    /// The query parameter `name` as an integer in `range` (default when absent), or a 400 problem.
    func integerParameter(_ name: String, default value: Int, in range: ClosedRange<Int>) throws(HTTPError) -> Int {
        guard let text = query[name] else { return value }
        guard let n = Int(text), range.contains(n) else {
            throw .badRequest(
                "'\(name)' must be a whole number from \(range.lowerBound) to \(range.upperBound).",
                title: "Invalid parameter")
        }
        return n
    }

    static func validate(_ c: Coordinate, _ name: String) throws(HTTPError) {
        guard c.isValid else {
            throw .badRequest(
                "'\(name)' is out of range: latitude must be within -90...90 and longitude within -180...180, "
                    + "both finite numbers.", title: "Invalid coordinate")
        }
    }
}
