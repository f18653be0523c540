import CabGeo
import CabHTTP
import CabPlaces

extension CabApplication {
    /// `GET /v1/places?q=&near=&limit=`, `GET /v1/places/reverse?lat=&lon=`.
    func registerPlaceEndpoints(on router: inout Router) {
        router.get("/v1/places") { [services] request in
            let places = try services.requirePlaces()
            guard let q = request.query["q"] else {
                throw HTTPError.badRequest("The query parameter 'q' is missing; give the text to search for.", title: "Missing parameter")
            }
            let near = request.query["near"] == nil ? nil : try request.coordinateParameter("near")
            let limit = try request.integerParameter("limit", default: 10, in: 1...50)
            let results = try places.search(q, near: near, limit: limit)
            return .json(PlaceSearchResponse(results: results.map(PlaceResponse.init)))
        }
        router.get("/v1/places/reverse") { [services] request in
            let places = try services.requirePlaces()
            let point = try request.coordinateParameters()
            return .json(ReverseResponse(result: try places.reverse(at: point).map(PlaceResponse.init)))
        }
    }
}

extension Services {
    /// The place index, or a 503 problem saying how to get one.
    func requirePlaces() throws(HTTPError) -> PlaceIndex {
        guard let places else {
            throw HTTPError(status: 503, title: "No places", detail: "No place index is loaded; import a map with `cab import`.")
        }
        return places
    }
}
