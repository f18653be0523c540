import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A one-thread HTTP server on 127.0.0.1 that answers each connection with the next scripted reply and records
/// the request heads, for the client's reconnection rules (a real `cab serve` cannot be told to drop a stream).
final class ScriptedHTTPServer: Sendable {
    /// The port it listens on.
    let port: Int
    private let listener: Int32
    private let heads = Mutex<[String]>([])
    private let done = DispatchSemaphore(value: 0)

    /// The request heads received, in order.
    var requests: [String] { heads.withLock { $0 } }

    /// Serves `replies` (raw HTTP responses, sent whole, then the connection is closed), one per connection.
    init(replies: [String]) throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, listen(fd, 8) == 0 else { throw POSIXError(.EADDRINUSE) }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        port = Int(UInt16(bigEndian: address.sin_port))
        listener = fd
        let thread = Thread { [self] in
            for reply in replies {
                let client = accept(fd, nil, nil)
                guard client >= 0 else { break }
                var head: [UInt8] = []
                var byte: UInt8 = 0
                while recv(client, &byte, 1, 0) == 1 {
                    head.append(byte)
                    if head.suffix(4) == Array("\r\n\r\n".utf8) { break }
                }
                heads.withLock { $0.append(String(decoding: head, as: UTF8.self)) }
                let bytes = Array(reply.utf8)
                _ = bytes.withUnsafeBytes { send(client, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                close(client)
            }
            done.signal()
        }
        thread.start()
    }

    /// An SSE response that ends after `body`.
    static func stream(_ body: String) -> String {
        "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n" + body
    }

    /// A problem+json response.
    static func problem(status: Int, title: String, detail: String) -> String {
        let body = #"{"title":"\#(title)","status":\#(status),"detail":"\#(detail)","code":"gone"}"#
        return
            "HTTP/1.1 \(status) \(title)\r\nContent-Type: application/problem+json\r\nContent-Length: \(body.utf8.count)\r\n"
            + "Connection: close\r\n\r\n" + body
    }

    deinit { close(listener) }
}
