import CabCore
import CabGeo
import CabHTTP
import CabTracking
import Foundation

/// One OsmAnd-protocol report, as Traccar Client and OsmAnd send it: parameters in the query string, or (POST)
/// in an `application/x-www-form-urlencoded` body.
///
/// `id` (or `deviceid`) is the device id; `lat` and `lon` (or `location=LAT,LON`) are required. Optional:
/// `timestamp` (Unix seconds, Unix milliseconds when larger than 2^31, ISO 8601, or `yyyy-MM-dd HH:mm:ss` UTC;
/// absent means now), `speed` in knots (as Traccar's decoder reads it), `bearing` or `heading` in degrees,
/// `accuracy` in metres, `valid` (`false`/`0` drops the fix). Other parameters (`altitude`, `batt`, `hdop`,
/// ...) are ignored.
struct OsmAndRequest {
    /// Metres per second in one knot.
    static let metersPerSecondPerKnot = 1852.0 / 3600.0

    var deviceID: String
    /// Nil when the device marked the position invalid.
    var fix: LocationFix?

    init(_ request: HTTPRequest, now: Instant) throws(HTTPError) {
        var parameters = request.query
        if parameters["id"] == nil && parameters["deviceid"] == nil && !request.body.isEmpty {
            parameters = Self.formParameters(request.body)
        }
        guard let id = parameters["id"] ?? parameters["deviceid"], !id.isEmpty else {
            throw ProblemType.missingParameter.error("The parameter 'id' (the device id) is missing.")
        }
        deviceID = id
        var latText = parameters["lat"]
        var lonText = parameters["lon"]
        if let location = parameters["location"] {
            let parts = location.split(separator: ",")
            if parts.count == 2 { (latText, lonText) = (String(parts[0]), String(parts[1])) }
        }
        guard let latText, let lonText, let lat = Double(latText), let lon = Double(lonText) else {
            throw ProblemType.invalidCoordinate.error("'lat' and 'lon' must be decimal degrees.")
        }
        func number(_ names: String...) throws(HTTPError) -> Double? {
            for name in names {
                guard let text = parameters[name], !text.isEmpty else { continue }
                guard let value = Double(text), value.isFinite else {
                    throw ProblemType.invalidParameter.error("'\(name)' must be a number.")
                }
                return value
            }
            return nil
        }
        let time = try parameters["timestamp"].map { (text) throws(HTTPError) in try Self.time(text) } ?? now
        let valid = parameters["valid"].map { !["false", "0"].contains($0.lowercased()) } ?? true
        let speedKnots = try number("speed")
        let heading = try number("bearing", "heading")
        let accuracy = try number("accuracy")
        let reported = LocationFix(
            coordinate: Coordinate(latitude: lat, longitude: lon), timeMilliseconds: time.millisecondsSinceEpoch,
            accuracyMeters: accuracy ?? 0, speedMetersPerSecond: speedKnots.map { $0 * Self.metersPerSecondPerKnot },
            headingDegrees: heading)
        if let violation = FixRanges.violation(in: reported) {
            let name: String
            let allowed: String
            switch violation.field {
            case .time: (name, allowed) = ("timestamp", violation.allowed)
            case .speed:
                let knots = Int(FixRanges.maximumSpeedMetersPerSecond / Self.metersPerSecondPerKnot)
                (name, allowed) = ("speed", "from 0 to \(knots) knots")
            case .heading: (name, allowed) = (parameters["bearing"] != nil ? "bearing" : "heading", violation.allowed)
            case .accuracy, .sequence: (name, allowed) = (violation.field.rawValue, violation.allowed)
            }
            throw ProblemType.valueOutOfRange.error("'\(name)' is out of range; it must be \(allowed).")
        }
        fix = valid ? reported : nil
    }

    /// The stored hash of a device id: SHA-256 of `osmand-device:` and the id, so a device id is no bearer token.
    static func keyHash(_ deviceID: String) -> TokenHash {
        TokenHash(bytes: TokenAuthority.sha256(Array(("osmand-device:" + deviceID).utf8)))
    }

    static func time(_ text: String) throws(HTTPError) -> Instant {
        if let number = Int64(text) {
            // Negative is never a device's time; refusing it here also keeps `seconds * 1000` from overflowing.
            guard number >= 0 else {
                throw ProblemType.invalidTimestamp.error(
                    "'timestamp' is negative; send Unix seconds or milliseconds since 1970 (from 2000 on).")
            }
            return number < Int64(Int32.max)
                ? Instant(secondsSinceEpoch: number) : Instant(millisecondsSinceEpoch: number)
        }
        if let instant = RFC3339.parse(text) { return instant }
        if let instant = RFC3339.parse(text.replacingOccurrences(of: " ", with: "T") + "Z") { return instant }
        throw ProblemType.invalidTimestamp.error(
            "'timestamp' must be Unix seconds, Unix milliseconds or an ISO 8601 time.")
    }

    /// Decodes `a=1&b=2` with `+` as space and percent escapes.
    static func formParameters(_ body: [UInt8]) -> [String: String] {
        var result: [String: String] = [:]
        for pair in String(decoding: body, as: UTF8.self).split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            func decode(_ s: Substring) -> String {
                let spaced = s.replacingOccurrences(of: "+", with: " ")
                return spaced.removingPercentEncoding ?? spaced
            }
            let name = decode(parts[0])
            if result[name] == nil { result[name] = parts.count > 1 ? decode(parts[1]) : "" }
        }
        return result
    }
}
