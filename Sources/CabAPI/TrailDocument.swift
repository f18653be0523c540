import CabCore
import CabDispatch
import CabGeo
import CabHTTP

/// `GET /v1/drivers/{id}/trail?from=..&to=..&format=geojson|gpx`: a driver's stored positions as a GeoJSON
/// Feature (a LineString, with the times in `properties.times`) or as a GPX 1.1 track.
enum TrailDocument {
    static func response(
        for driver: DriverID, request: HTTPRequest, tracking: TrackingService, now: Instant
    ) throws -> HTTPResponse {
        let to = try time(request, "to") ?? now
        let from = try time(request, "from") ?? to.adding(seconds: -3600)
        guard from < to else {
            throw ProblemType.invalidTimeRange.error("'from' must be earlier than 'to'.")
        }
        let format = request.query["format"] ?? "geojson"
        guard format == "geojson" || format == "gpx" else {
            throw ProblemType.invalidParameter.error("'format' must be geojson or gpx.")
        }
        let records = try tracking.historyStore.trail(
            of: driver, from: from, to: to, limit: tracking.configuration.trailLimit)
        if format == "gpx" {
            return .bytes(Array(gpx(records, driver: driver).utf8), contentType: "application/gpx+xml")
        }
        return .bytes(
            Array(geoJSON(records, driver: driver, from: from, to: to).utf8), contentType: "application/geo+json")
    }

    private static func time(_ request: HTTPRequest, _ name: String) throws(HTTPError) -> Instant? {
        guard let text = request.query[name] else { return nil }
        guard let instant = RFC3339.parse(text) else {
            throw ProblemType.invalidTime.error("'\(name)' must be an RFC 3339 time such as 2026-05-01T12:00:00Z.")
        }
        return instant
    }

    /// A Feature whose geometry is the LineString of the positions (null with fewer than two, as GeoJSON requires).
    static func geoJSON(_ records: [DriverLocationRecord], driver: DriverID, from: Instant, to: Instant) -> String {
        let positions = records.map { "[\($0.coordinate.longitude),\($0.coordinate.latitude)]" }
        let geometry =
            records.count < 2
            ? "null" : "{\"type\":\"LineString\",\"coordinates\":[\(positions.joined(separator: ","))]}"
        let times = records.map { "\"\(RFC3339.format($0.time))\"" }.joined(separator: ",")
        return "{\"type\":\"Feature\",\"geometry\":\(geometry),\"properties\":{\"driver_id\":\"\(driver.rawValue)\","
            + "\"from\":\"\(RFC3339.format(from))\",\"to\":\"\(RFC3339.format(to))\",\"count\":\(records.count),"
            + "\"coordinates\":[\(positions.joined(separator: ","))],\"times\":[\(times)]}}"
    }

    /// A GPX 1.1 document with one track of one segment.
    static func gpx(_ records: [DriverLocationRecord], driver: DriverID) -> String {
        var out = """
            <?xml version="1.0" encoding="UTF-8"?>
            <gpx version="1.1" creator="SwiftCab" xmlns="http://www.topografix.com/GPX/1/1">
            <trk><name>\(driver.rawValue)</name><trkseg>

            """
        for r in records {
            out += "<trkpt lat=\"\(r.coordinate.latitude)\" lon=\"\(r.coordinate.longitude)\">"
            out += "<time>\(RFC3339.format(r.time))</time>"
            out += "</trkpt>\n"
        }
        out += "</trkseg></trk>\n</gpx>\n"
        return out
    }
}
