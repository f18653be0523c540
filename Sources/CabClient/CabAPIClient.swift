import CabGeo
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension ClientError.Code {
    /// No answer from the server (offline, timeout, DNS).
    public static let network = ClientError.Code("network")
    /// The server answered with an error status; `message` is its problem `detail`.
    public static let server = ClientError.Code("server")
    /// The server's answer did not have the expected shape.
    public static let unexpectedResponse = ClientError.Code("unexpected_response")
}

/// A SwiftCab API client over `URLSession` for rider and driver apps.
public struct CabAPIClient: Sendable {
    /// The server, e.g. `http://127.0.0.1:8080`.
    public let baseURL: URL
    /// The bearer token for authenticated calls.
    public var token: String?
    private let session: URLSession

    /// A client for `baseURL`, authenticated with `token` when given.
    public init(baseURL: URL, token: String? = nil, session: URLSession = .shared) {
        self.baseURL = baseURL
        self.token = token
        self.session = session
    }

    /// Creates a rider account (`POST /v1/riders`).
    public func createRider(name: String) async throws(ClientError) -> AccountCredentials {
        try await send("POST", "/v1/riders", body: ["name": name])
    }

    /// Creates a driver account (`POST /v1/drivers`).
    public func createDriver(name: String, vehicle: String, plate: String, vehicleType: String? = nil)
        async throws(ClientError) -> AccountCredentials
    {
        var body = ["name": name, "vehicle": vehicle, "plate": plate]
        body["vehicle_type"] = vehicleType
        return try await send("POST", "/v1/drivers", body: body)
    }

    /// Estimates route and fare (`POST /v1/estimates`).
    public func estimate(from pickup: Coordinate, to dropoff: Coordinate) async throws(ClientError) -> FareEstimate {
        try await send("POST", "/v1/estimates", body: ["pickup": pickup, "dropoff": dropoff])
    }

    /// Books a ride (`POST /v1/bookings`); retrying with the same `idempotencyKey` returns the same booking.
    public func book(
        from pickup: Coordinate, to dropoff: Coordinate, pickupName: String? = nil, dropoffName: String? = nil,
        idempotencyKey: String = UUID().uuidString
    ) async throws(ClientError) -> BookingSummary {
        struct Body: Encodable {
            var pickup, dropoff: Coordinate
            var pickup_name, dropoff_name: String?
        }
        return try await send(
            "POST", "/v1/bookings",
            body: Body(
                pickup: pickup, dropoff: dropoff, pickup_name: pickupName,
                dropoff_name: dropoffName),
            headers: ["Idempotency-Key": idempotencyKey])
    }

    /// Reads a booking (`GET /v1/bookings/{id}`).
    public func booking(id: String) async throws(ClientError) -> BookingSummary {
        try await send("GET", "/v1/bookings/\(try pathComponent(id))", body: Optional<[String: String]>.none)
    }

    /// Cancels a booking (`POST /v1/bookings/{id}/cancel`); cancelling twice is harmless.
    public func cancelBooking(id: String, reason: String? = nil) async throws(ClientError) -> BookingSummary {
        try await send("POST", "/v1/bookings/\(try pathComponent(id))/cancel", body: ["reason": reason])
    }

    /// Posts up to 100 fixes for the authenticated driver (`POST /v1/driver/locations`).
    public func postLocations(_ fixes: [ReportedFix]) async throws(ClientError) -> LocationsReceipt {
        try await send("POST", "/v1/driver/locations", body: ["fixes": fixes])
    }

    /// `id` when it is safe in a path (letters, digits, `_`, `-`), else an `invalid_id` error.
    func pathComponent(_ id: String) throws(ClientError) -> String {
        guard !id.isEmpty, id.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" }) else {
            throw ClientError(.init("invalid_id"), "'\(id)' is not a SwiftCab id.")
        }
        return id
    }

    func send<Body: Encodable, Answer: Decodable>(
        _ method: String, _ path: String, body: Body?, headers: [String: String] = [:]
    ) async throws(ClientError) -> Answer {
        var request = request(path)
        request.httpMethod = method
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        if let body {
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            do {
                request.httpBody = try JSONEncoder().encode(body)
            } catch {
                throw ClientError(.unexpectedResponse, "Could not encode the request.", underlying: error)
            }
        }
        return try await perform(request)
    }

    func perform<Answer: Decodable>(_ original: URLRequest) async throws(ClientError) -> Answer {
        var request = original
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        let data: Data
        let response: URLResponse
        do {
            (data, response) = try await session.data(for: request)
        } catch {
            throw ClientError(.network, "The server did not answer; check the connection.", underlying: error)
        }
        guard let http = response as? HTTPURLResponse else {
            throw ClientError(.unexpectedResponse, "The answer was not HTTP.")
        }
        guard (200..<300).contains(http.statusCode) else {
            throw ServerProblem(
                status: http.statusCode, data: data, retryAfter: http.value(forHTTPHeaderField: "Retry-After")
            )
            .error
        }
        do {
            return try JSONDecoder().decode(Answer.self, from: data)
        } catch {
            throw ClientError(.unexpectedResponse, "The server's answer had an unexpected shape.", underlying: error)
        }
    }
}

/// A non-2xx answer as a typed error: its status, the problem+json (RFC 9457) `code`, `title` and `detail`, and
/// `Retry-After`.
public struct ServerProblem: Error, Hashable, Sendable {
    /// A problem's machine-readable `code`: the server's catalogue (`GET /problems`) names each one; the constants
    /// below are the codes this SDK knows, and a code from a newer server is kept as it came.
    public struct Code: RawRepresentable, Hashable, Sendable, ExpressibleByStringLiteral, CustomStringConvertible {
        /// The code as sent ("offer_not_open").
        public let rawValue: String
        /// A code.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// A code from a literal.
        public init(stringLiteral value: String) { rawValue = value }
        /// The code.
        public var description: String { rawValue }
    }

    /// The HTTP status.
    public var status: Int
    /// The problem's machine-readable `code` ("offer_not_open"), when the server sends one.
    public var code: Code?
    /// The problem's `type` URI (`/problems/{code}`), when sent.
    public var type: String?
    /// The problem's short, constant `title` ("No road nearby").
    public var title: String?
    /// The problem's `detail`: what went wrong with this request and what to fix.
    public var detail: String?
    /// For a refused trip event (`illegal_transition`): the state the trip is in ("in_progress").
    public var currentState: String?
    /// `Retry-After` in seconds, when sent.
    public var retryAfterSeconds: Double?

    /// Creates a problem from its parts.
    public init(
        status: Int, code: Code? = nil, title: String? = nil, detail: String? = nil, retryAfterSeconds: Double? = nil,
        type: String? = nil, currentState: String? = nil
    ) {
        self.status = status
        self.code = code
        self.type = type
        self.title = title
        self.detail = detail
        self.currentState = currentState
        self.retryAfterSeconds = retryAfterSeconds
    }

    /// Reads a problem+json body; a body of another shape leaves `code`, `title` and `detail` nil.
    public init(status: Int, data: Data, retryAfter: String?) {
        struct Problem: Decodable {
            var type: String?, code: String?, title: String?, detail: String?
            var currentState: String?
            enum CodingKeys: String, CodingKey {
                case type, code, title, detail
                case currentState = "current_state"
            }
        }
        let problem = try? JSONDecoder().decode(Problem.self, from: data)
        self.init(
            status: status, code: problem?.code.map(Code.init(rawValue:)), title: problem?.title,
            detail: problem?.detail,
            retryAfterSeconds: retryAfter.flatMap { Double($0.trimmingCharacters(in: .whitespaces)) },
            type: problem?.type,
            currentState: problem?.currentState)
    }

    /// This problem as the client's error (`.server`, the detail as its message).
    public var error: ClientError {
        ClientError(.server, detail ?? title ?? "The server answered \(status).", underlying: self)
    }
}

extension ClientError {
    /// The server's problem when this error is a non-2xx answer (`code == .server`).
    public var problem: ServerProblem? { underlying as? ServerProblem }
}

extension CabAPIClient: LocationTransport {
    /// Posts `fixes`; 429 becomes `.rateLimited`, 400/413/422 `.rejected`, everything else that fails `.failed`.
    public func upload(_ fixes: [ReportedFix]) async -> UploadResult {
        do {
            _ = try await postLocations(fixes)
            return .accepted
        } catch {
            guard let problem = error.underlying as? ServerProblem else { return .failed }
            switch problem.status {
            case 429: return .rateLimited(retryAfterSeconds: problem.retryAfterSeconds ?? 5)
            case 400, 413, 422: return .rejected
            default: return .failed
            }
        }
    }
}
