/// One HTTP request as a handler sees it: fully read, bounded body, decoded path and query.
public struct HTTPRequest: Sendable {
    /// The method in upper case: "GET", "POST", ...
    public var method: String
    /// The path without the query string, percent-decoded ("/v1/bookings/abc").
    public var path: String
    /// Query parameters, percent-decoded; for a repeated name the first value wins.
    public var query: [String: String]
    /// Headers with lower-cased names; for a repeated name the values are joined with ", ".
    public var headers: [String: String]
    /// The body bytes (never more than the server's body limit).
    public var body: [UInt8]
    /// Parameters captured by the route pattern (`{id}` → `pathParameters["id"]`).
    public var pathParameters: [String: String]
    /// A unique id for this request, echoed as `X-Request-Id` and logged.
    public var requestID: String
    /// Whether the handler may wait (a store read, a full queue). False only while a route registered
    /// `.inlineUnlessParked` runs on an epoll thread: a handler that would wait then calls
    /// `parkUnlessItMayWait()` before doing anything, and runs again from the start on the handler pool.
    public internal(set) var mayWait = true

    /// Creates a request; the server fills `pathParameters` when it routes.
    public init(
        method: String, path: String, query: [String: String] = [:], headers: [String: String] = [:],
        body: [UInt8] = [], pathParameters: [String: String] = [:], requestID: String = ""
    ) {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.body = body
        self.pathParameters = pathParameters
        self.requestID = requestID
    }

    /// Throws `ParkRequest` when the handler must not wait here (see `mayWait`); call it before the first
    /// side effect, since the handler runs again from the start on the pool.
    public func parkUnlessItMayWait() throws(ParkRequest) {
        if !mayWait { throw ParkRequest() }
    }

    /// The header `name` (case-insensitive).
    public func header(_ name: String) -> String? { headers[name.lowercased()] }

    /// The bearer token of the `Authorization` header, if any ("Bearer" in any case, spaces around the token
    /// dropped). Scans bytes: it runs on every authenticated request.
    public var bearerToken: String? {
        guard let value = headers["authorization"] else { return nil }
        let utf8 = value.utf8
        let scheme = "bearer ".utf8
        guard utf8.count > scheme.count else { return nil }
        var index = utf8.startIndex
        for expected in scheme {
            // ASCII letters compare case-insensitively (| 0x20 lower-cases them and leaves the space alone).
            guard utf8[index] | 0x20 == expected else { return nil }
            index = utf8.index(after: index)
        }
        var end = utf8.endIndex
        func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 }
        while index < end, isSpace(utf8[index]) { index = utf8.index(after: index) }
        while end > index, isSpace(utf8[utf8.index(before: end)]) { end = utf8.index(before: end) }
        guard index < end else { return "" }
        return String(value[index..<end])
    }
}
