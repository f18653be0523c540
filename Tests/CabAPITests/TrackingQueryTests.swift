import CabAPI
import CabCore
import CabGeo
import CabTestSupport
import CabTracking
import Foundation
import Testing

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// Nearby drivers and trails over HTTP.
@Suite struct TrackingQueryTests {
    @Test func nearbyEqualsABruteForceScan() throws {
        let f = try TrackingFixture()
        var random = SystemRandomNumberGenerator()
        var drivers: [(DriverID, Coordinate, VehicleType)] = []
        for i in 0..<120 {
            let id = DriverID.random()
            let type: VehicleType = i % 3 == 0 ? .large : .standard
            try f.store.createDriver(
                Driver(
                    id: id, name: "d\(i)", vehicle: "car", plate: "P\(i)", vehicleType: type, createdAt: f.clock.now()),
                tokenHash: TokenAuthority.tokenHash("t\(i)-\(id)"))
            let c = Coordinate(
                latitude: .random(in: 60.10...60.25, using: &random),
                longitude: .random(in: 24.80...25.05, using: &random))
            _ = f.tracking.ingest(
                [
                    LocationFix(
                        coordinate: c, timeMilliseconds: f.clock.now().millisecondsSinceEpoch - 1000, accuracyMeters: 5)
                ],
                from: id)
            drivers.append((id, c, type))
        }
        let busy = drivers[1].0
        f.tracking.setStatus(.busy, for: busy)
        for _ in 0..<10 {
            let q = Coordinate(
                latitude: .random(in: 60.12...60.23, using: &random),
                longitude: .random(in: 24.82...25.03, using: &random))
            for filter in [nil, VehicleType.large] {
                var path = "/v1/drivers/nearby?lat=\(q.latitude)&lon=\(q.longitude)&k=7"
                if let filter { path += "&vehicle_type=\(filter.rawValue)" }
                let answer = try f.request("GET", path, token: f.dispatcherToken)
                #expect(answer.status == 200)
                let got = (answer.jsonObject?["drivers"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
                let projection = LocalProjection(referenceLatitude: q.latitude)
                let expected = drivers.filter { $0.0 != busy && (filter == nil || $0.2 == filter) }
                    .map { d -> (String, Double) in
                        let dy = (d.1.latitude - q.latitude) * projection.metersPerDegreeLatitude
                        let dx = (d.1.longitude - q.longitude) * projection.metersPerDegreeLongitude
                        return (d.0.rawValue, dx * dx + dy * dy)
                    }
                    .sorted { $0.1 < $1.1 }.prefix(7).map(\.0)
                #expect(got == Array(expected))
                // Each driver comes with the name and plate of their account, for the dispatcher's list.
                let names = drivers.enumerated().reduce(into: [String: (String, String)]()) {
                    $0[$1.element.0.rawValue] = ("d\($1.offset)", "P\($1.offset)")
                }
                for d in answer.jsonObject?["drivers"] as? [[String: Any]] ?? [] {
                    let id = d["id"] as? String ?? ""
                    #expect(d["name"] as? String == names[id]?.0 && d["plate"] as? String == names[id]?.1)
                }
            }
        }
        #expect(try f.request("GET", "/v1/drivers/nearby?lat=60.1&lon=24.9", token: f.tokenA).status == 403)
        #expect(
            try f.request("GET", "/v1/drivers/nearby?lat=60.1&lon=24.9&vehicle_type=boat", token: f.dispatcherToken)
                .status == 400)
    }

    @Test func trailAsGeoJSONAndGPX() throws {
        let f = try TrackingFixture()
        let batch = [f.fix(60.170, 24.94, at: -30), f.fix(60.171, 24.941, at: -20), f.fix(60.172, 24.942, at: -10)]
        #expect(try f.post(batch, token: f.tokenA).jsonObject?["accepted"] as? Int == 3)
        f.tracking.history.flush()
        let path = "/v1/drivers/\(f.driverA)/trail?from=\(f.time(-60))&to=\(f.time(1))"
        let geo = try f.request("GET", path, token: f.dispatcherToken)
        #expect(geo.status == 200)
        #expect(geo.headers["content-type"] == "application/geo+json")
        let geometry = try #require(geo.jsonObject?["geometry"] as? [String: Any])
        #expect(geometry["type"] as? String == "LineString")
        #expect(geometry["coordinates"] as? [[Double]] == [[24.94, 60.17], [24.941, 60.171], [24.942, 60.172]])
        let properties = try #require(geo.jsonObject?["properties"] as? [String: Any])
        #expect(properties["times"] as? [String] == [f.time(-30), f.time(-20), f.time(-10)])

        let gpx = try f.request("GET", path + "&format=gpx", token: f.tokenA)
        #expect(gpx.status == 200)
        #expect(gpx.headers["content-type"] == "application/gpx+xml")
        let elements = ElementCollector()
        let parser = XMLParser(data: Data(gpx.body))
        parser.delegate = elements
        #expect(parser.parse())  // well-formed
        #expect(elements.found.first?.name == "gpx")
        #expect(elements.found.first?.attributes["version"] == "1.1")
        #expect(elements.found.first?.attributes["xmlns"] == "http://www.topografix.com/GPX/1/1")
        let points = elements.found.filter { $0.name == "trkpt" }
        #expect(points.map { $0.attributes["lat"] } == ["60.17", "60.171", "60.172"])
        #expect(elements.found.filter { $0.name == "time" }.count == 3)

        #expect(try f.request("GET", path, token: f.tokenB).status == 404)
        #expect(try f.request("GET", "/v1/drivers/\(f.driverA)/trail?from=soon", token: f.tokenA).status == 400)
    }
}

/// Collects elements and their attributes from an `XMLParser`.
final class ElementCollector: NSObject, XMLParserDelegate {
    var found: [(name: String, attributes: [String: String])] = []

    func parser(
        _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName: String?,
        attributes: [String: String] = [:]
    ) {
        found.append((elementName, attributes))
    }
}
