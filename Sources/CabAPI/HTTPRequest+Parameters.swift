import CabGeo
import CabHTTP

extension HTTPRequest {
    /// The query parameter `name` as `LAT,LON`, or a 400 problem saying what to fix.
    func coordinateParameter(_ name: String) throws(HTTPError) -> Coordinate {
        guard let text = query[name], !text.isEmpty else {
            throw ProblemType.missingParameter.error(
                "The query parameter '\(name)' is missing; give it as \(name)=LAT,LON.")
        }
        guard let c = Coordinate(parsing: text) else {
            throw ProblemType.invalidCoordinate.error(
                "'\(name)' must be LAT,LON in decimal degrees (e.g. 60.1699,24.9384).")
        }
        try Self.validate(c, name)
        return c
    }

    /// Two query parameters `lat` and `lon` as a coordinate, or a 400 problem.
    func coordinateParameters(lat: String = "lat", lon: String = "lon") throws(HTTPError) -> Coordinate {
        guard let latText = query[lat], let lonText = query[lon] else {
            throw ProblemType.missingParameter.error("The query parameters '\(lat)' and '\(lon)' are required.")
        }
        guard let la = Double(latText), let lo = Double(lonText) else {
            throw ProblemType.invalidCoordinate.error("'\(lat)' and '\(lon)' must be decimal degrees.")
        }
        let c = Coordinate(latitude: la, longitude: lo)
        try Self.validate(c, "\(lat),\(lon)")
        return c
    }

    /// The query parameter `name` as an integer in `range` (default when absent), or a 400 problem.
    func integerParameter(_ name: String, default value: Int, in range: ClosedRange<Int>) throws(HTTPError) -> Int {
        guard let text = query[name] else { return value }
        guard let n = Int(text), range.contains(n) else {
            throw ProblemType.invalidParameter.error(
                "'\(name)' must be a whole number from \(range.lowerBound) to \(range.upperBound).")
        }
        return n
    }

    static func validate(_ c: Coordinate, _ name: String) throws(HTTPError) {
        guard c.isValid else {
            throw ProblemType.invalidCoordinate.error(
                "'\(name)' is out of range: latitude must be within -90...90 and longitude within -180...180, "
                    + "both finite numbers.")
        }
    }
}
