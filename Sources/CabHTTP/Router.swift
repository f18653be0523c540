/// Handles one request. Runs on a thread of the server's handler pool, where it may block (a durable write, a
/// lock, a large read) without holding up other connections; a route registered `.inline` runs on the epoll
/// thread itself and must never block; a route registered `.inlineUnlessParked` runs there until it asks to wait.
public typealias HTTPHandler = @Sendable (HTTPRequest) throws -> HTTPResponse

/// Where a route's handler runs.
public enum HandlerExecution: Sendable, Equatable {
    /// On the server's handler pool, the request parked meanwhile (the default): for anything that may wait.
    case pool
    /// On libmicrohttpd's epoll thread, at once: only for cheap handlers that never block (`/healthz`,
    /// `/metrics`, small static files), so that they answer even when every pool thread is busy.
    case inline
    /// On the epoll thread while the handler finds everything it needs in memory; a handler that would wait
    /// (a cache miss that reads the store, a full queue) throws `ParkRequest` through
    /// `HTTPRequest.parkUnlessItMayWait()` before any side effect, and the server runs it again from the start
    /// on the pool with the request parked (`mayWait` true). For hot, cheap routes (single-fix ingest) that cross
    /// two threads for nothing on the pool. Without a pool it runs inline with `mayWait` true.
    case inlineUnlessParked
}

/// Thrown by a handler of an `.inlineUnlessParked` route that would wait on the epoll thread
/// (`HTTPRequest.parkUnlessItMayWait()`): the server runs the request again on the handler pool.
public struct ParkRequest: Error, Sendable {
    /// The signal; it carries nothing.
    public init() {}
}

/// Maps method and path patterns (`/v1/bookings/{id}/qr.svg`) to handlers.
public struct Router: Sendable {
    /// One registered route.
    public struct Route: Sendable {
        /// The method, upper case.
        public let method: String
        /// The pattern as registered; also the `route` label in metrics.
        public let pattern: String
        /// Where the handler runs.
        public let execution: HandlerExecution
        let segments: [Segment]
        let handler: HTTPHandler
    }

    enum Segment: Sendable, Equatable {
        case literal(String)
        case parameter(String)
        /// `{name}.suffix`: a parameter followed by a literal suffix, which the segment must end with.
        case parameterWithSuffix(String, suffix: String)
        /// `{name*}`: the rest of the path, possibly empty (static files).
        case rest(String)
    }

    /// The outcome of matching a request.
    public enum Match: Sendable {
        /// A route, with the request's path parameters filled in.
        case found(Route, [String: String])
        /// The path exists for other methods (405).
        case methodNotAllowed(allowed: [String])
        /// Nothing matches (404).
        case notFound
    }

    private(set) var routes: [Route] = []
    /// Routes whose segments are all literal, by "METHOD path" (the first registered wins), for an O(1) match.
    private var literalRoutes: [String: Route] = [:]

    /// An empty router.
    public init() {}

    /// Adds a route. `pattern` is `/`-separated: literal segments, `{name}` parameters, `{name}.suffix` parameters
    /// followed by a literal suffix (`/v1/map/tiles/{z}/{x}/{y}.geojson`: the parameter is the segment without it),
    /// and a final `{name*}` for the rest of the path. `execution` says where the handler runs (see
    /// `HandlerExecution`).
    public mutating func add(
        _ method: String, _ pattern: String, execution: HandlerExecution = .pool, handler: @escaping HTTPHandler
    ) {
        let segments = Router.split(pattern).map { part -> Segment in
            if part.hasPrefix("{") && part.hasSuffix("*}") { return .rest(String(part.dropFirst().dropLast(2))) }
            if part.hasPrefix("{") && part.hasSuffix("}") { return .parameter(String(part.dropFirst().dropLast())) }
            if part.hasPrefix("{"), let close = part.firstIndex(of: "}"), !part.contains("*") {
                return .parameterWithSuffix(
                    String(part[part.index(after: part.startIndex)..<close]),
                    suffix: String(part[part.index(after: close)...]))
            }
            return .literal(String(part))
        }
        let route = Route(
            method: method.uppercased(), pattern: pattern, execution: execution, segments: segments, handler: handler)
        routes.append(route)
        if segments.allSatisfy({ if case .literal = $0 { true } else { false } }) {
            let key =
                route.method + " /"
                + segments.map { if case .literal(let s) = $0 { s } else { "" } }.joined(separator: "/")
            if literalRoutes[key] == nil { literalRoutes[key] = route }
        }
    }

    /// Adds a GET route.
    public mutating func get(
        _ pattern: String, execution: HandlerExecution = .pool, handler: @escaping HTTPHandler
    ) { add("GET", pattern, execution: execution, handler: handler) }
    /// Adds a POST route.
    public mutating func post(
        _ pattern: String, execution: HandlerExecution = .pool, handler: @escaping HTTPHandler
    ) { add("POST", pattern, execution: execution, handler: handler) }

    /// Finds the route for `method` and `path`. Literal segments win over parameters; earlier routes win ties.
    /// - Complexity: O(routes × segments).
    public func match(method: String, path: String) -> Match {
        // An all-literal route scores highest among the routes its path can match (a `{rest*}` route scores only
        // its literal prefix), and the first registered of equal ones is kept: an exact hit is what the scan below
        // would answer. HEAD (which also matches GET routes) takes the scan.
        if method != "HEAD", let route = literalRoutes[method + " " + path] { return .found(route, [:]) }
        let parts = Router.split(path)
        var best: (route: Route, params: [String: String], score: Int)?
        var allowed: Set<String> = []
        for route in routes {
            guard let (params, score) = Router.match(route.segments, parts) else { continue }
            let sameMethod = route.method == method || (method == "HEAD" && route.method == "GET")
            if !sameMethod {
                allowed.insert(route.method)
                continue
            }
            if best == nil || score > best!.score { best = (route, params, score) }
        }
        if let best { return .found(best.route, best.params) }
        if !allowed.isEmpty { return .methodNotAllowed(allowed: allowed.sorted()) }
        return .notFound
    }

    private static func match(_ segments: [Segment], _ parts: [Substring]) -> ([String: String], Int)? {
        var params: [String: String] = [:]
        var score = 0
        for (i, segment) in segments.enumerated() {
            switch segment {
            case .rest(let name):
                params[name] = parts.dropFirst(i).joined(separator: "/")
                return (params, score)
            case .literal(let text):
                guard i < parts.count, parts[i] == text else { return nil }
                score += 2
            case .parameter(let name):
                guard i < parts.count, !parts[i].isEmpty else { return nil }
                params[name] = String(parts[i])
                score += 1
            case .parameterWithSuffix(let name, let suffix):
                guard i < parts.count, parts[i].count > suffix.count, parts[i].hasSuffix(suffix) else { return nil }
                params[name] = String(parts[i].dropLast(suffix.count))
                score += 1
            }
        }
        return parts.count == segments.count ? (params, score) : nil
    }

    private static func split(_ path: String) -> [Substring] {
        path.split(separator: "/", omittingEmptySubsequences: true)
    }
}
