#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// A blocking HTTP/1.1 client for the benchmarks' setup calls (create accounts, check an endpoint) against a
/// server on 127.0.0.1: one connection per request, bounded response size.
struct LoopbackHTTPClient {
    /// A response: status, headers by lowercased name, body.
    struct Response {
        var status: Int
        var headers: [String: String]
        var body: [UInt8]
        /// The body as text.
        var text: String { String(decoding: body, as: UTF8.self) }
        /// The body as a JSON object, nil when it is not one.
        var jsonObject: [String: Any]? {
            (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any]
        }
    }

    /// The server's port on 127.0.0.1.
    let port: Int
    /// The largest response body read.
    var maximumBodyBytes = 8 << 20
    /// Seconds a request may take.
    var timeoutSeconds = 30

    /// Sends one request and reads the whole response.
    func send(
        _ method: String, _ path: String, headers: [(String, String)] = [], json: Any? = nil
    ) throws(BenchError) -> Response {
        var allHeaders = headers
        var body: [UInt8]?
        if let json {
            guard let data = try? JSONSerialization.data(withJSONObject: json) else {
                throw BenchError("cannot encode a request body as JSON")
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
            if n < 0 { throw BenchError("\(method) \(path): no answer (\(errnoText()))") }
            if n == 0 { break }
            received += try decoder.feed(buffer[0..<n])
            if received.count > maximumBodyBytes { throw BenchError("\(method) \(path): response too large") }
        }
        guard let status = decoder.status else { throw BenchError("\(method) \(path): connection closed early") }
        return Response(status: status, headers: decoder.headers, body: received)
    }
}
