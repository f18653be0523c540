import CabDispatch
import CabGeo
import CabHTTP

extension CabApplication {
    /// The most points one side of a matrix may have.
    static let maximumMatrixSide = 100

    /// `GET /v1/route`, `POST /v1/matrix`.
    func registerRoutingEndpoints(on router: inout Router) {
        router.get("/v1/route") { [services] request in
            let from = try request.coordinateParameter("from")
            let to = try request.coordinateParameter("to")
            let reference = request.query["engine"] == "dijkstra"
            let routing = try services.requireRouting()
            let response = RouteResponse(try routing.route(from: from, to: to, reference: reference))
            return .bytes(response.jsonBytes(), contentType: "application/json")
        }
        router.post("/v1/matrix") { [services] request in
            let body = try request.decodeJSON(MatrixRequest.self)
            let limit = Self.maximumMatrixSide
            guard !body.sources.isEmpty, !body.destinations.isEmpty,
                body.sources.count <= limit, body.destinations.count <= limit
            else {
                throw ProblemType.matrixSize.error("Give 1 to \(limit) sources and 1 to \(limit) destinations.")
            }
            for (i, c) in (body.sources + body.destinations).enumerated() where !c.isValid {
                throw ProblemType.invalidCoordinate.error(
                    "Point \(i) is out of range: latitude must be within -90...90 and longitude within -180...180.")
            }
            let cells = try services.requireRouting().matrix(from: body.sources, to: body.destinations)
            return .json(
                MatrixResponse(
                    durations: cells.map { $0.map { $0.map { Double($0.durationMilliseconds) / 1000 } } },
                    distances: cells.map { $0.map { $0.map { ($0.distanceMeters * 10).rounded() / 10 } } }))
        }
    }
}

struct MatrixRequest: Decodable {
    var sources: [Coordinate]
    var destinations: [Coordinate]
}

/// A null cell means no route between that source and destination.
struct MatrixResponse: Encodable {
    var durations: [[Double?]]
    var distances: [[Double?]]

    enum CodingKeys: String, CodingKey {
        case durations = "durations_s"
        case distances = "distances_m"
    }
}

extension Services {
    /// The routing service, or a 503 problem saying how to get one.
    func requireRouting() throws(HTTPError) -> RoutingService {
        guard let routing else {
            throw ProblemType.noMap.error("No map is loaded; import one with `cab import MAP.osm.pbf --data DIR`.")
        }
        return routing
    }
}
