import CabLoopback
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A response as read off the wire: the loopback client's (CabLoopback), shared with the benchmarks.
public typealias HTTPTestResponse = LoopbackHTTPClient.Response

/// Why a test connection failed.
public struct HTTPTestError: Error, CustomStringConvertible {
    /// What happened.
    public var description: String
    /// The `errno` value, if a system call failed.
    public var errno: Int32?
}

/// A raw HTTP/1.1 client over one TCP socket, for tests that need to control the bytes: keep-alive, malformed
/// requests, partial bodies, streams. Every read gives up after `timeout` so a broken server fails the test
/// instead of hanging it.
public final class HTTPTestConnection {
    private let descriptor: Int32
    private var buffer: [UInt8] = []
    private var start = 0

    /// Connects to `host:port` (numeric IPv4), from `source` when given (another loopback address such as
    /// 127.0.0.2, to be a second client); reads time out after `timeoutSeconds`.
    public init(port: Int, host: String = "127.0.0.1", source: String? = nil, timeoutSeconds: Int = 10) throws {
        let fd: Int32
        do {
            fd = try LoopbackSocket.connect(port: port, nonBlocking: false, host: host, source: source)
        } catch {
            throw HTTPTestError(description: error.message, errno: error.errno)
        }
        var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        descriptor = fd
    }

    deinit { close(descriptor) }

    /// Whether a connection to `host:port` is refused right now.
    public static func isRefused(port: Int, host: String = "127.0.0.1") -> Bool {
        do {
            _ = try HTTPTestConnection(port: port, host: host)
            return false
        } catch let error as HTTPTestError {
            return error.errno == ECONNREFUSED
        } catch {
            return false
        }
    }

    /// Sends `bytes` (without raising SIGPIPE when the server has closed). Returns how many were sent before
    /// the server closed, or all of them.
    @discardableResult
    public func send(_ bytes: [UInt8]) throws -> Int {
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes {
                Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            if count < 0 {
                if errno == EINTR { continue }
                if errno == EPIPE || errno == ECONNRESET { return sent }
                throw HTTPTestError(description: "send failed", errno: errno)
            }
            sent += count
        }
        return sent
    }

    /// Sends `text` as UTF-8.
    @discardableResult
    public func send(_ text: String) throws -> Int { try send(Array(text.utf8)) }

    /// Sends a request with `Content-Length` when there is a body.
    public func sendRequest(
        _ method: String, _ path: String, headers: [String: String] = [:], body: [UInt8] = []
    ) throws {
        var head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) { head += "\(name): \(value)\r\n" }
        if !body.isEmpty || method == "POST" || method == "PUT" { head += "Content-Length: \(body.count)\r\n" }
        try send(Array((head + "\r\n").utf8) + body)
    }

    /// Reads the status line and headers.
    public func readHead() throws -> (status: Int, headers: [String: String]) {
        let statusLine = try readLine()
        let parts = statusLine.split(separator: " ", maxSplits: 2)
        guard parts.count >= 2, parts[0].hasPrefix("HTTP/1."), let status = Int(parts[1]) else {
            throw HTTPTestError(description: "bad status line: \(statusLine)")
        }
        var headers: [String: String] = [:]
        while true {
            let line = try readLine()
            if line.isEmpty { break }
            guard let colon = line.firstIndex(of: ":") else { throw HTTPTestError(description: "bad header: \(line)") }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(
                in: .whitespaces)
        }
        return (status, headers)
    }

    /// Reads one whole response (Content-Length, chunked, or until close).
    public func readResponse(method: String = "GET") throws -> HTTPTestResponse {
        let (status, headers) = try readHead()
        var body: [UInt8] = []
        if method == "HEAD" || status == 204 || status == 304 {
        } else if headers["transfer-encoding"]?.lowercased() == "chunked" {
            while let chunk = try readChunk() { body += chunk }
        } else if let length = headers["content-length"].flatMap({ Int($0) }) {
            body = try readExact(length)
        } else {
            while try fill() > 0 {}
            body = Array(buffer[start...])
            start = buffer.count
        }
        return HTTPTestResponse(status: status, headers: headers, body: body)
    }

    /// Reads the next chunk of a chunked body; nil after the last (zero-size) chunk.
    public func readChunk() throws -> [UInt8]? {
        let sizeLine = try readLine()
        guard let size = Int(sizeLine.split(separator: ";")[0], radix: 16) else {
            throw HTTPTestError(description: "bad chunk size: \(sizeLine)")
        }
        if size == 0 {
            while try !readLine().isEmpty {}  // trailers
            return nil
        }
        let data = try readExact(size)
        _ = try readLine()
        return data
    }

    /// Whether the server closed the connection (reads to end of file, dropping any bytes).
    public func readUntilClosed() throws -> Bool {
        while try fill() > 0 { start = buffer.count }
        return true
    }

    private func readLine() throws -> String {
        while true {
            if let newline = buffer[start...].firstIndex(of: UInt8(ascii: "\n")) {
                var end = newline
                if end > start && buffer[end - 1] == UInt8(ascii: "\r") { end -= 1 }
                let line = String(decoding: buffer[start..<end], as: UTF8.self)
                start = newline + 1
                return line
            }
            if try fill() == 0 { throw HTTPTestError(description: "connection closed mid-line") }
        }
    }

    private func readExact(_ count: Int) throws -> [UInt8] {
        while buffer.count - start < count {
            if try fill() == 0 { throw HTTPTestError(description: "connection closed mid-body") }
        }
        defer { start += count }
        return Array(buffer[start..<start + count])
    }

    /// Reads what is available; 0 at end of file (a reset counts as end of file).
    private func fill() throws -> Int {
        if start > 0 {
            buffer.removeFirst(start)
            start = 0
        }
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count < 0 {
                if errno == EINTR { continue }
                if errno == ECONNRESET { return 0 }
                throw HTTPTestError(description: "recv failed or timed out", errno: errno)
            }
            buffer += chunk[..<count]
            return count
        }
    }
}
