import CabGeo
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What a rider app needs besides booking: places, the account, ratings, cars nearby.
extension CabAPIClient {
    /// Places matching `query`, nearest to `near` first (`GET /v1/places`).
    public func places(matching query: String, near: Coordinate, limit: Int = 6) async throws(ClientError) -> [Place] {
        struct Answer: Decodable { var results: [Place] }
        let answer: Answer = try await get(
            "/v1/places",
            query: ["q": query, "near": "\(near.latitude),\(near.longitude)", "limit": String(limit)])
        return answer.results
    }

    /// The named place at `point`, nil where the map has none (`GET /v1/places/reverse`).
    public func place(at point: Coordinate) async throws(ClientError) -> Place? {
        struct Answer: Decodable { var result: Place? }
        let answer: Answer = try await get(
            "/v1/places/reverse", query: ["lat": String(point.latitude), "lon": String(point.longitude)])
        return answer.result
    }

    /// The account the token belongs to (`GET /v1/me`).
    public func me() async throws(ClientError) -> AccountInfo {
        try await get("/v1/me", query: [:])
    }

    /// Rates the driver of a completed trip, 1 to 5 stars (`POST /v1/bookings/{id}/rating`, newer servers);
    /// returns the stars the server kept (its answer's `rating` or `stars`, else the ones sent).
    public func rate(booking id: String, stars: Int) async throws(ClientError) -> Int {
        let answer: BookingSummary = try await send(
            "POST", "/v1/bookings/\(try pathComponent(id))/rating", body: ["stars": stars])
        return answer.rating?.stars ?? stars
    }

    /// Available cars near `point`, coarse and anonymous (`GET /v1/cars/nearby`, newer servers).
    public func nearbyCars(around point: Coordinate) async throws(ClientError) -> [NearbyCar] {
        struct Answer: Decodable { var cars: [NearbyCar] }
        let answer: Answer = try await get(
            "/v1/cars/nearby", query: ["lat": String(point.latitude), "lon": String(point.longitude)])
        return answer.cars
    }

    /// A request for `path` on the server with the token, for streams and other callers.
    public func request(_ path: String, query: [String: String] = [:]) -> URLRequest {
        var components = URLComponents(url: baseURL.appendingPathComponent(path), resolvingAgainstBaseURL: false)
        if !query.isEmpty {
            // Sorted so requests are reproducible; `+` is escaped because some servers read it as a space.
            components?.queryItems = query.sorted { $0.key < $1.key }.map {
                URLQueryItem(name: $0.key, value: $0.value)
            }
            let encoded = components?.percentEncodedQuery?.replacingOccurrences(of: "+", with: "%2B")
            components?.percentEncodedQuery = encoded
        }
        // The path and query come from this client and parse as a URL; the base URL is already one.
        var request = URLRequest(url: components?.url ?? baseURL.appendingPathComponent(path))
        if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        return request
    }

    func get<Answer: Decodable>(_ path: String, query: [String: String]) async throws(ClientError) -> Answer {
        try await perform(request(path, query: query))
    }
}
