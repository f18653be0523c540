import CabGeo
import CabHTTP
import CabPlaces

extension CabApplication {
    /// `GET /v1/places?q=&near=&limit=&lang=`, `GET /v1/places/reverse?lat=&lon=&lang=`, and the rider's saved
    /// places (`/v1/me/places`). Names come in the rider's language (`lang`, else `Accept-Language`) when the
    /// place has one, with the local name beside it.
    func registerPlaceEndpoints(on router: inout Router) {
        router.get("/v1/places") { [services] request in
            let places = try services.requirePlaces()
            guard let q = request.query["q"] else {
                throw ProblemType.missingParameter.error(
                    "The query parameter 'q' is missing; give the text to search for.")
            }
            let near = request.query["near"] == nil ? nil : try request.coordinateParameter("near")
            let limit = try request.integerParameter("limit", default: 10, in: 1...50)
            let languages = try LanguagePreference.languages(for: request)
            let results = try places.search(q, near: near, limit: limit, languages: languages)
            return .json(PlaceSearchResponse(results: results.map(PlaceResponse.init)))
        }
        router.get("/v1/places/reverse") { [services] request in
            let places = try services.requirePlaces()
            let point = try request.coordinateParameters()
            let languages = try LanguagePreference.languages(for: request)
            return .json(
                ReverseResponse(result: try places.reverse(at: point, languages: languages).map(PlaceResponse.init)))
        }
        registerSavedPlaceEndpoints(on: &router)
    }
}

extension Services {
    /// The place index, or a 503 problem saying how to get one.
    func requirePlaces() throws(HTTPError) -> PlaceIndex {
        guard let places else {
            throw ProblemType.noPlaces.error("No place index is loaded; import a map with `cab import`.")
        }
        return places
    }
}
