import CabHTTP

extension CabApplication {
    /// `GET /v1/route`.
    func registerRoutingEndpoints(on router: inout Router) {
        router.get("/v1/route") { [services] request in
            let from = try request.coordinateParameter("from")
            let to = try request.coordinateParameter("to")
            let routing = try services.requireRouting()
            return .json(RouteResponse(try routing.route(from: from, to: to)))
        }
    }
}

extension Services {
    /// The routing service, or a 503 problem saying how to get one.
    func requireRouting() throws(HTTPError) -> RoutingService {
        guard let routing else {
            throw HTTPError(
                status: 503, title: "No map", detail: "No map is loaded; import one with `cab import MAP.osm.pbf --data DIR`.")
        }
        return routing
    }
}
