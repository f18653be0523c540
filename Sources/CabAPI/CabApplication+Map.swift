import CabBaseMap
import CabGeo
import CabHTTP

extension CabApplication {
    /// How long a browser may reuse a base-map answer before asking again (`Cache-Control: max-age`); a tile is
    /// then revalidated by its `ETag` (304 while the imported map is the same).
    static let mapCacheSeconds = 3600

    /// `GET /v1/map`: where the imported map lies (the box around its features, and its centre), so that a page
    /// opens on the city served, whatever the extract;
    /// `GET /v1/map/features?bbox=minLon,minLat,maxLon,maxLat&zoom=Z`: the base map for drawing without tiles;
    /// `GET /v1/map/tiles/{z}/{x}/{y}.geojson`: the same features as cacheable slippy-map tiles, clipped to the
    /// tile, gzipped when the request's `Accept-Encoding` allows it.
    func registerMapEndpoints(on router: inout Router) {
        router.get("/v1/map/features") { [services] request in
            guard let baseMap = services.baseMap else {
                throw ProblemType.noMap.error("No base map is loaded; import a map with `cab import`.")
            }
            guard let text = request.query["bbox"], let box = BoundingBox(parsing: text) else {
                throw ProblemType.invalidBoundingBox.error(
                    "'bbox' must be minLon,minLat,maxLon,maxLat in decimal degrees with min ≤ max.")
            }
            let zoom = try request.integerParameter("zoom", default: 16, in: 0...22)
            let limit = try request.integerParameter(
                "limit", default: BaseMapIndex.defaultLimit, in: 1...BaseMapIndex.maximumLimit)
            let collection = try baseMap.features(in: box, zoom: zoom, limit: limit)
            var response = HTTPResponse.bytes(Array(collection.geoJSON.utf8), contentType: "application/geo+json")
            response.headers.append(("Cache-Control", "public, max-age=\(Self.mapCacheSeconds)"))
            return response
        }
        // One service per router: its cache of encoded tiles lives as long as the server (the map is immutable).
        let tiles = services.baseMap.map { MapTileService(baseMap: $0) }
        router.get("/v1/map") { _ in
            guard let tiles else {
                throw ProblemType.noMap.error("No base map is loaded; import a map with `cab import`.")
            }
            guard let box = try tiles.extent() else {
                throw ProblemType.noMap.error("The imported base map has no features; import a map with `cab import`.")
            }
            let center = box.center
            let answer = MapExtentResponse(
                bounds: .init(
                    south: box.southWest.latitude, west: box.southWest.longitude, north: box.northEast.latitude,
                    east: box.northEast.longitude),
                center: center)
            var response = HTTPResponse.json(answer)
            response.headers.append(("Cache-Control", "public, max-age=\(Self.mapCacheSeconds)"))
            return response
        }
        router.get("/v1/map/tiles/{z}/{x}/{y}.geojson") { request in
            guard let tiles else {
                throw ProblemType.noMap.error("No base map is loaded; import a map with `cab import`.")
            }
            let tile = try Self.mapTile(request.pathParameters)
            let coding: MapTileService.Coding = request.acceptsEncoding("gzip") ? .gzip : .identity
            let etag = tiles.entityTag(for: tile, coding: coding)
            let cacheControl = "public, max-age=\(Self.mapCacheSeconds)"
            // Every answer names the header it depends on, so that a shared cache keeps the codings apart.
            let vary = ("Vary", "Accept-Encoding")
            if request.ifNoneMatchIncludes(etag) {
                return .notModified(etag: etag, headers: [("Cache-Control", cacheControl), vary])
            }
            var response = HTTPResponse.bytes(try tiles.tile(tile, coding: coding), contentType: "application/geo+json")
            if coding == .gzip { response.headers.append(("Content-Encoding", "gzip")) }
            response.headers.append(vary)
            return response.cacheable(etag: etag, cacheControl: cacheControl)
        }
    }

    /// The tile a request's `{z}`, `{x}` and `{y}` name, or the `invalid_tile` problem saying what is wrong.
    static func mapTile(_ parameters: [String: String]) throws -> MapTile {
        func number(_ name: String) throws -> Int {
            let text = parameters[name] ?? ""
            guard !text.isEmpty, text.utf8.count <= 8, text.utf8.allSatisfy({ (48...57).contains($0) }),
                let value = Int(text)
            else {
                throw ProblemType.invalidTile.error(
                    "The tile's \(name) must be a whole number; got '\(text.prefix(20))'.")
            }
            return value
        }
        let zoom = try number("z")
        guard MapTile.zoomRange.contains(zoom) else {
            throw ProblemType.invalidTile.error(
                "The tile's zoom must be \(MapTile.zoomRange.lowerBound)…\(MapTile.zoomRange.upperBound); got \(zoom).")
        }
        let x = try number("x")
        let y = try number("y")
        guard let tile = MapTile(zoom: zoom, x: x, y: y) else {
            throw ProblemType.invalidTile.error(
                "At zoom \(zoom) the tile's x and y must be 0…\((1 << zoom) - 1); got x \(x), y \(y).")
        }
        return tile
    }
}

/// `GET /v1/map`: the box around the imported map's features and its centre, in decimal degrees.
struct MapExtentResponse: Encodable {
    struct Bounds: Encodable {
        let south: Double
        let west: Double
        let north: Double
        let east: Double
    }

    let bounds: Bounds
    let center: Coordinate
}
