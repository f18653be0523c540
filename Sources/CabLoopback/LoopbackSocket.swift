#if canImport(Glibc)
    import Glibc
#endif

/// Raw TCP sockets to 127.0.0.1 for the load tools (Glibc `socket`/`connect`), and the request bytes they send.
public enum LoopbackSocket {
    /// A new TCP socket connecting to `host`:`port` (numeric IPv4, 127.0.0.1 by default), from the local address
    /// `source` when given (another loopback address such as 127.0.0.2, to be a second client); non-blocking
    /// sockets return while the connect is in progress (wait for writability). Throws when the socket cannot be
    /// made or the connect fails at once (the error carries `errno`).
    public static func connect(
        port: Int, nonBlocking: Bool, host: String = "127.0.0.1", source: String? = nil
    ) throws(LoopbackError) -> Int32 {
        // Close-on-exec: a load generator started later (wrk) must not inherit thousands of stream sockets; wrk
        // sizes its event loop for its own connections and fails on higher descriptor numbers.
        let flags = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        let fd = socket(AF_INET, flags | (nonBlocking ? Int32(SOCK_NONBLOCK.rawValue) : 0), 0)
        guard fd >= 0 else {
            throw LoopbackError("cannot create a socket: \(errnoText()) (raise the open-file limit?)", errno: errno)
        }
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        if let source {
            var local = sockaddr_in()
            local.sin_family = sa_family_t(AF_INET)
            inet_pton(AF_INET, source, &local.sin_addr)
            let bound = withUnsafePointer(to: &local) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            guard bound == 0 else {
                let code = errno
                close(fd)
                throw LoopbackError("cannot bind to \(source): \(String(cString: strerror(code)))", errno: code)
            }
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        inet_pton(AF_INET, host, &address.sin_addr)
        let rc = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        if rc != 0 && !(nonBlocking && errno == EINPROGRESS) {
            let code = errno
            close(fd)
            throw LoopbackError("cannot connect to \(host):\(port): \(String(cString: strerror(code)))", errno: code)
        }
        return fd
    }

    /// The bytes of an HTTP/1.1 request to 127.0.0.1.
    public static func request(
        method: String, path: String, headers: [(String, String)] = [], body: [UInt8]? = nil, keepAlive: Bool
    ) -> [UInt8] {
        var head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        if let body { head += "Content-Length: \(body.count)\r\n" }
        if !keepAlive { head += "Connection: close\r\n" }
        return Array((head + "\r\n").utf8) + (body ?? [])
    }

    /// Writes all of `bytes` to a blocking socket.
    public static func writeAll(_ fd: Int32, _ bytes: [UInt8]) throws(LoopbackError) {
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { throw LoopbackError("cannot send a request: \(errnoText())") }
            sent += n
        }
    }

    /// Raises the soft open-file limit (`RLIMIT_NOFILE`) towards `wanted`, up to the hard limit; returns the
    /// soft limit now in force.
    @discardableResult
    public static func raiseOpenFileLimit(to wanted: Int) -> Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 0 }
        if limit.rlim_cur < rlim_t(wanted) {
            limit.rlim_cur = min(rlim_t(wanted), limit.rlim_max)
            _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
            _ = getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        }
        return Int(limit.rlim_cur)
    }
}
