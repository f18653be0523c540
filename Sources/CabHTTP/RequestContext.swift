/// What the server remembers about one request between libmicrohttpd's calls. Touched only by the worker thread
/// that owns the connection (libmicrohttpd calls a connection's callbacks from one thread at a time).
final class RequestContext {
    /// Why the request is refused before its handler runs (found from the request line alone).
    enum Refusal {
        case uriTooLong(bytes: Int)
        case tooManyParameters(count: Int)
        /// `%00` in the path: decoded, it would cut the path short (`rider.js%00` would serve `rider.js`).
        case nulInPath
    }

    var method = "GET"
    /// The path as libmicrohttpd delivered it (already percent-decoded, query removed).
    var path = "/"
    /// "HTTP/1.1" or "HTTP/1.0".
    var version = ""
    /// Set once the headers are in and `HTTPServer.begin` ran; a context made from the request line alone
    /// (`cabURILog`) whose request never got that far is not counted as in flight.
    var begun = false
    let refusal: Refusal?
    let started = ContinuousClock.now
    let startedAt = JSONLine.timestamp()
    var requestID = ""
    var remoteAddress = ""
    /// The matched route's pattern, or "unmatched"; the `route` label.
    var routePattern = "unmatched"
    var match: Router.Match = .notFound
    var body: [UInt8] = []
    /// Set when the body grew past the limit; further bytes are counted and dropped.
    var bodyTooLarge = false
    var discardedBytes = 0
    /// The status queued, nil while none is.
    var status: Int?
    var bytesSent = 0
    var stream: StreamContext?
    /// A response a handler deferred, with its request (for error mapping) while the connection is parked.
    var deferred: (response: DeferredResponse, request: HTTPRequest)?

    /// A context made when the request line arrives.
    init(refusal: Refusal? = nil) { self.refusal = refusal }

    /// Records what the headers said.
    func setRequestLine(method: String, url: String, version: String) {
        self.method = method
        self.path = url
        self.version = version
        begun = true
    }
}
