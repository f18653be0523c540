import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A blocking HTTP/1.1 client for one-shot requests to a server on 127.0.0.1 (the benchmarks' setup calls, the
/// tests' requests to a `cab serve` child): one connection per request, bounded response size.
public struct LoopbackHTTPClient: Sendable {
    /// A response: status, headers by lowercased name, body.
    public struct Response: Sendable {
        /// The status code.
        public var status: Int
        /// Headers with lower-cased names (a repeated header keeps its last value).
        public var headers: [String: String]
        /// The body, de-chunked.
        public var body: [UInt8]
        /// A response with `status`, `headers` (lower-cased names) and `body`.
        public init(status: Int, headers: [String: String], body: [UInt8]) {
            self.status = status
            self.headers = headers
            self.body = body
        }

        /// The body as text.
        public var text: String { String(decoding: body, as: UTF8.self) }
        /// The body as a JSON object, nil when it is not one.
        public var jsonObject: [String: Any]? {
            (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any]
        }
    }

    /// The server's port on 127.0.0.1.
    public let port: Int
    /// The largest response body read.
    public var maximumBodyBytes = 8 << 20
    /// Seconds a request may take.
    public var timeoutSeconds = 30

    /// A client of the server on 127.0.0.1:`port`.
    public init(port: Int) { self.port = port }

    /// Sends one request and reads the whole response. The body is `json` encoded (with its `Content-Type`), else
    /// `body` as it is; `Content-Length` is sent whenever there is one (an empty POST sends `Content-Length: 0`).
    public func send(
        _ method: String, _ path: String, headers: [(String, String)] = [], json: Any? = nil,
        body rawBody: [UInt8]? = nil
    ) throws(LoopbackError) -> Response {
        var allHeaders = headers
        var body = rawBody
        if let json {
            guard let data = try? JSONSerialization.data(withJSONObject: json) else {
                throw LoopbackError("cannot encode a request body as JSON")
            }
            body = Array(data)
            allHeaders.append(("Content-Type", "application/json"))
        }
        let fd = try LoopbackSocket.connect(port: port, nonBlocking: false)
        defer { close(fd) }
        var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        try LoopbackSocket.writeAll(
            fd, LoopbackSocket.request(method: method, path: path, headers: allHeaders, body: body, keepAlive: false))
        var decoder = HTTPResponseDecoder()
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while !decoder.isComplete {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n < 0 && errno == EINTR { continue }
            if n < 0 { throw LoopbackError("\(method) \(path): no answer (\(errnoText()))") }
            if n == 0 { break }
            received += try decoder.feed(buffer[0..<n])
            if received.count > maximumBodyBytes { throw LoopbackError("\(method) \(path): response too large") }
        }
        guard let status = decoder.status else { throw LoopbackError("\(method) \(path): connection closed early") }
        return Response(status: status, headers: decoder.headers, body: received)
    }
}
