import CabBaseMap
import CabGeo
import CabImport
import CabTestSupport
import CabZlib
import Foundation
import Testing

@testable import CabAPI
@testable import CabHTTP

/// `GET /v1/map/tiles/{z}/{x}/{y}.geojson` on the Helsinki extract's base map: the tile's features, the problem for
/// numbers out of range, what a browser's cache needs (a strong `ETag`, `Cache-Control`, 304 when current), gzip
/// when the browser accepts it, and the bounded cache of encoded tiles.
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
        #expect(first.header("Vary") == "Accept-Encoding" && first.header("Content-Encoding") == nil)
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

    /// A browser that accepts gzip gets the tile gzipped, under its own strong tag, and a 304 for either tag it
    /// holds; every answer says it varies with `Accept-Encoding`.
    @Test func aBrowserThatAcceptsGzipGetsItGzippedUnderItsOwnTag() throws {
        let plain = try get(Self.path(Self.centre))
        let gzip = ["accept-encoding": "gzip, deflate, br, zstd"]
        let packed = try get(Self.path(Self.centre), headers: gzip)
        #expect(packed.status == 200)
        #expect(packed.header("Content-Encoding") == "gzip" && plain.header("Content-Encoding") == nil)
        #expect(packed.header("Vary") == "Accept-Encoding" && plain.header("Vary") == "Accept-Encoding")
        #expect(packed.header("Content-Type") == "application/geo+json")
        let plainTag = try #require(plain.header("ETag"))
        let packedTag = try #require(packed.header("ETag"))
        #expect(packedTag == String(plainTag.dropLast()) + "-gz\"")
        // The gzip member inflates to the identity's bytes, and is much smaller.
        var inflated: [UInt8] = []
        let produced = try Self.body(packed).withUnsafeBufferPointer {
            try Inflater(format: .gzip).inflate($0, into: &inflated, expectedSize: nil, limit: 1 << 20)
        }
        #expect(Array(inflated.prefix(produced)) == Self.body(plain))
        #expect(Self.body(packed).count * 3 < Self.body(plain).count)

        let current = try get(Self.path(Self.centre), headers: gzip.merging(["if-none-match": packedTag]) { $1 })
        #expect(current.status == 304 && Self.body(current).isEmpty)
        #expect(current.header("ETag") == packedTag && current.header("Vary") == "Accept-Encoding")
        #expect(current.header("Content-Encoding") == nil)
        #expect(try get(Self.path(Self.centre), headers: ["if-none-match": plainTag]).status == 304)
        // The identity's tag does not name the gzip bytes (nor the other way): the other representation is sent.
        let other = try get(Self.path(Self.centre), headers: gzip.merging(["if-none-match": plainTag]) { $1 })
        #expect(other.status == 200 && other.header("ETag") == packedTag)
        let back = try get(Self.path(Self.centre), headers: ["if-none-match": packedTag])
        #expect(back.status == 200 && back.header("ETag") == plainTag && Self.body(back) == Self.body(plain))
        // A client that refuses gzip gets the identity.
        let refused = try get(Self.path(Self.centre), headers: ["accept-encoding": "gzip;q=0, br"])
        #expect(refused.header("Content-Encoding") == nil && Self.body(refused) == Self.body(plain))
    }

    /// The service keeps encoded tiles within its capacity, least recently used out first, and a tile from the
    /// cache is the tile written afresh.
    @Test func encodedTilesAreKeptWithinTheCapacity() throws {
        let fresh = MapTileService(baseMap: Self.baseMap, capacityBytes: 0)
        let tiles = MapTileService(baseMap: Self.baseMap, capacityBytes: 150_000)
        let around = MapTile.covering(Self.centre.boundingBox.expanded(byMeters: 400), zoom: 16)
        #expect(around.count >= 9)
        for tile in around {
            let first = try tiles.tile(tile, coding: .gzip)
            #expect(try tiles.tile(tile, coding: .gzip) == first)
            #expect(try tiles.tile(tile, coding: .identity) == fresh.tile(tile, coding: .identity))
            #expect(tiles.cacheUsage.bytes <= 150_000)
        }
        #expect(tiles.cacheUsage.tiles > 0 && tiles.cacheUsage.tiles < around.count)
        #expect(fresh.cacheUsage.tiles == 0)

        var cache = TileCache()
        let a = MapTile(zoom: 1, x: 0, y: 0)!
        let b = MapTile(zoom: 1, x: 1, y: 0)!
        let c = MapTile(zoom: 1, x: 0, y: 1)!
        cache.store(a, identity: [UInt8](repeating: 1, count: 40), gzip: nil, capacityBytes: 100)
        cache.store(b, identity: [UInt8](repeating: 2, count: 40), gzip: nil, capacityBytes: 100)
        #expect(cache.lookUp(a) != nil)  // a is now the more recently used
        cache.store(c, identity: [UInt8](repeating: 3, count: 30), gzip: nil, capacityBytes: 100)
        #expect(cache.lookUp(b) == nil && cache.lookUp(a) != nil && cache.lookUp(c) != nil)
        #expect(cache.bytes == 70)  // over 100, down to at most three quarters
        cache.store(a, identity: [UInt8](repeating: 1, count: 40), gzip: [9, 9], capacityBytes: 100)
        #expect(cache.lookUp(a)?.gzip == [9, 9] && cache.bytes == 72)
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

    /// `GET /v1/map`: where the extract lies, so that a page opens on the city served (the centre of Helsinki's
    /// extract, about 1 x 1.7 km of the centre, by the railway station), cacheable; without a map, the problem.
    @Test func theMapSaysWhereItLies() throws {
        let response = try get("/v1/map")
        #expect(response.status == 200)
        #expect(response.header("Cache-Control")?.contains("max-age") == true)
        let answer = try #require(try JSONSerialization.jsonObject(with: Data(Self.body(response))) as? [String: Any])
        let bounds = try #require(answer["bounds"] as? [String: Double])
        let center = try #require(answer["center"] as? [String: Double])
        let south = try #require(bounds["south"]), north = try #require(bounds["north"])
        let west = try #require(bounds["west"]), east = try #require(bounds["east"])
        #expect(south < north && west < east)
        #expect((60.15...60.19).contains(south) && (60.15...60.19).contains(north))
        #expect((24.92...24.97).contains(west) && (24.92...24.97).contains(east))
        #expect(abs(try #require(center["lat"]) - (south + north) / 2) < 1e-9)
        #expect(abs(try #require(center["lon"]) - (west + east) / 2) < 1e-9)
        let bare = CabApplication(
            configuration: APIConfiguration(publicDirectory: nil), services: Services(), metrics: MetricsRegistry()
        )
        .makeRouter()
        guard case .found(let route, _) = bare.match(method: "GET", path: "/v1/map") else {
            Issue.record("GET /v1/map is not routed")
            return
        }
        let missing: HTTPResponse
        do {
            missing = try route.handler(HTTPRequest(method: "GET", path: "/v1/map", headers: [:], requestID: "test"))
        } catch let error as HTTPError { missing = error.response(requestID: nil) }
        #expect(missing.status == 503)
        let problem = try #require(try JSONSerialization.jsonObject(with: Data(Self.body(missing))) as? [String: Any])
        #expect(problem["code"] as? String == "no_map")
    }
}
