import CabBaseMap
import CabGeo
import CabImport
import CabTestSupport
import Foundation
import Testing

@testable import CabAPI
@testable import CabHTTP

/// `GET /v1/map/tiles/{z}/{x}/{y}.geojson` on the Helsinki extract's base map: the tile's features, the problem for
/// numbers out of range, and what a browser's cache needs (a strong `ETag`, `Cache-Control`, 304 when current).
@Suite struct MapTileEndpointTests {
    static let baseMap: BaseMapIndex = {
        do {
            let directory = try TestData.temporaryDirectory("map-tiles-helsinki")
            let path = directory.appendingPathComponent(BaseMapIndex.fileName).path
            _ = try BaseMapImport.importFile(pbfPath: TestData.sharedExtract("helsinki").path, to: path)
            return try BaseMapIndex(path: path)
        } catch {
            preconditionFailure("the API test base map could not be built: \(error)")
        }
    }()

    let router: Router = {
        var services = Services()
        services.baseMap = MapTileEndpointTests.baseMap
        return CabApplication(
            configuration: APIConfiguration(publicDirectory: nil), services: services, metrics: MetricsRegistry()
        )
        .makeRouter()
    }()

    /// The Esplanadi, at zoom 16.
    static let centre = MapTile(containing: Coordinate(latitude: 60.1676, longitude: 24.9466), zoom: 16)

    func get(_ path: String, headers: [String: String] = [:]) throws -> HTTPResponse {
        guard case .found(let route, let parameters) = router.match(method: "GET", path: path) else {
            return HTTPResponse(status: 404)
        }
        var request = HTTPRequest(method: "GET", path: path, headers: headers, requestID: "test")
        request.pathParameters = parameters
        do { return try route.handler(request) } catch let error as HTTPError { return error.response(requestID: nil) }
    }

    static func body(_ response: HTTPResponse) -> [UInt8] {
        if case .bytes(let bytes) = response.body { return bytes }
        return []
    }

    /// The positions of GeoJSON `coordinates`, however deeply nested.
    static func points(_ coordinates: Any) -> [Coordinate] {
        guard let list = coordinates as? [Any] else { return [] }
        func number(_ value: Any) -> Double? {
            (value as? Double) ?? (value as? Int).map(Double.init) ?? (value as? NSNumber)?.doubleValue
        }
        if list.count == 2, let lon = number(list[0]), let lat = number(list[1]) {
            return [Coordinate(latitude: lat, longitude: lon)]
        }
        return list.flatMap { points($0) }
    }

    static func path(_ tile: MapTile) -> String { "/v1/map/tiles/\(tile.zoom)/\(tile.x)/\(tile.y).geojson" }

    @Test func aTileHoldsTheStreetsOfItsBox() throws {
        let response = try get(Self.path(Self.centre))
        #expect(response.status == 200)
        #expect(response.header("Content-Type") == "application/geo+json")
        let object = try #require(
            try JSONSerialization.jsonObject(with: Data(Self.body(response))) as? [String: Any])
        #expect(object["type"] as? String == "FeatureCollection")
        let features = try #require(object["features"] as? [[String: Any]])
        #expect(features.count > 20)
        let names = Set(features.compactMap { ($0["properties"] as? [String: String])?["name"] })
        #expect(names.contains("Pohjoisesplanadi") || names.contains("Eteläesplanadi"), "\(names.sorted())")
        #expect(Self.body(response).count <= BaseMapIndex.tileByteBudget)
        // Every feature reaches into the tile's box (whole, so it may go on beyond it). The R*Tree keeps boxes as
        // 32-bit floats rounded outward, so a feature ending up to about 0.5 m short of the tile comes too (4 of
        // this tile's did): under a pixel, allowed here.
        let box = Self.centre.boundingBox.expanded(byMeters: 1)
        for feature in features {
            let points = Self.points((feature["geometry"] as? [String: Any])?["coordinates"] ?? [])
            let around = try #require(BoundingBox(enclosing: points))
            #expect(
                around.southWest.longitude <= box.northEast.longitude
                    && around.northEast.longitude >= box.southWest.longitude
                    && around.southWest.latitude <= box.northEast.latitude
                    && around.northEast.latitude >= box.southWest.latitude,
                "feature \(feature["id"] ?? "") lies outside tile \(Self.centre)")
        }
        // A tile far from the extract is empty, not an error.
        let away = try get("/v1/map/tiles/16/0/0.geojson")
        #expect(away.status == 200 && String(decoding: Self.body(away), as: UTF8.self).hasSuffix("\"features\":[]}"))
    }

    @Test func theBrowserMayCacheItAndRevalidatesWithItsETag() throws {
        let first = try get(Self.path(Self.centre))
        let etag = try #require(first.header("ETag"))
        #expect(etag.hasPrefix("\"") && etag.hasSuffix("\""), "a strong tag: \(etag)")
        #expect(first.header("Cache-Control") == "public, max-age=3600")
        let neighbour = try get(Self.path(MapTile(zoom: 16, x: Self.centre.x + 1, y: Self.centre.y)!))
        #expect(neighbour.header("ETag") != etag)

        let current = try get(Self.path(Self.centre), headers: ["if-none-match": etag])
        #expect(current.status == 304)
        #expect(Self.body(current).isEmpty)
        #expect(current.header("ETag") == etag && current.header("Cache-Control") == "public, max-age=3600")
        #expect(try get(Self.path(Self.centre), headers: ["if-none-match": "\"other\", W/\(etag)"]).status == 304)
        let stale = try get(Self.path(Self.centre), headers: ["if-none-match": "\"bm-0-t1-16-1-1\""])
        #expect(stale.status == 200 && Self.body(stale) == Self.body(first))
    }

    @Test(arguments: [
        "/v1/map/tiles/23/0/0.geojson", "/v1/map/tiles/2/4/0.geojson", "/v1/map/tiles/2/0/4.geojson",
        "/v1/map/tiles/16/-1/0.geojson", "/v1/map/tiles/a/0/0.geojson", "/v1/map/tiles/16/1.5/0.geojson",
        "/v1/map/tiles/16/0/99999999999.geojson",
    ])
    func numbersOutOfRangeAreTheInvalidTileProblem(path: String) throws {
        let response = try get(path)
        #expect(response.status == 400)
        #expect(response.header("Content-Type")?.hasPrefix("application/problem+json") == true)
        let problem = try #require(
            try JSONSerialization.jsonObject(with: Data(Self.body(response))) as? [String: Any])
        #expect(problem["code"] as? String == "invalid_tile")
        #expect(problem["type"] as? String == "/problems/invalid_tile")
    }

    @Test func withoutTheSuffixThereIsNoSuchTile() throws {
        #expect(try get("/v1/map/tiles/16/0/0").status == 404)
    }
}
