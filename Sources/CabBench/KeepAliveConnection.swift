import CabLoopback
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// One HTTP/1.1 keep-alive connection to a server on 127.0.0.1, used from one thread: requests go one after
/// another; a request that fails on a connection that was already open is sent once more on a fresh one (the
/// server may have closed an idle connection), and a failure on a fresh connection is no answer (status 0).
package struct KeepAliveConnection {
    package let port: Int
    private var fd: Int32 = -1
    private var buffer = [UInt8](repeating: 0, count: 16 * 1024)

    package init(port: Int) { self.port = port }

    /// Sends one request; the answer's status (0 for none), headers (lower-cased names) and body.
    package mutating func send(_ method: String, _ path: String, headers: [(String, String)], body: [UInt8]) -> (
        status: Int, headers: [String: String], body: [UInt8]
    ) {
        for attempt in 0..<2 {
            if fd < 0 {
                guard let opened = try? LoopbackSocket.connect(port: port, nonBlocking: false) else { break }
                fd = opened
                var timeout = timeval(tv_sec: 30, tv_usec: 0)
                setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            }
            let request = LoopbackSocket.request(
                method: method, path: path, headers: headers, body: body, keepAlive: true)
            var decoder = HTTPResponseDecoder()
            var received: [UInt8] = []
            var failed = (try? LoopbackSocket.writeAll(fd, request)) == nil
            while !failed && !decoder.isComplete {
                let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                if n < 0 && errno == EINTR { continue }
                if n <= 0 {
                    failed = true
                } else if let bytes = try? decoder.feed(buffer[0..<n]) {
                    received += bytes
                } else {
                    failed = true
                }
            }
            if let status = decoder.status, decoder.isComplete {
                if decoder.headers["connection"]?.lowercased() == "close" { close() }
                return (status, decoder.headers, received)
            }
            close()
            if attempt == 1 { break }
        }
        return (0, [:], [])
    }

    /// Closes the connection (the next request opens a new one).
    mutating func close() {
        if fd >= 0 { Glibc.close(fd) }
        fd = -1
    }
}
