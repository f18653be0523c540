import CabBaseMap
import CabGeo
import CabHTTP

extension CabApplication {
    /// `GET /v1/map/features?bbox=minLon,minLat,maxLon,maxLat&zoom=Z`: the base map for drawing without tiles.
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
            response.headers.append(("Cache-Control", "public, max-age=3600"))
            return response
        }
    }
}
