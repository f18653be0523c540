/// How an `HTTPServer` listens and what it accepts.
public struct HTTPServerConfiguration: Sendable {
    /// The numeric address to bind ("127.0.0.1", "::1", "0.0.0.0"); "localhost" means 127.0.0.1.
    public var host: String
    /// The TCP port; 0 lets the kernel pick a free one (read it back from `HTTPServer.start()`).
    public var port: Int
    /// Worker threads in libmicrohttpd's pool, each with its own epoll loop.
    public var workerThreads: Int
    /// The largest request body accepted; larger ones are answered 413.
    public var maxBodyBytes: Int
    /// Seconds a connection may stay idle before it is closed.
    public var connectionTimeoutSeconds: Int
    /// Connections open at once; further ones are refused.
    public var maxConnections: Int
    /// How long `shutdown()` waits for in-flight requests before stopping anyway.
    public var shutdownGracePeriod: Duration

    /// Creates a configuration; every parameter has a serviceable default.
    public init(
        host: String = "127.0.0.1", port: Int = 8080, workerThreads: Int = HTTPServerConfiguration.processorCount,
        maxBodyBytes: Int = 1 << 20, connectionTimeoutSeconds: Int = 60, maxConnections: Int = 10_000,
        shutdownGracePeriod: Duration = .seconds(10)
    ) {
        self.host = host
        self.port = port
        self.workerThreads = workerThreads
        self.maxBodyBytes = maxBodyBytes
        self.connectionTimeoutSeconds = connectionTimeoutSeconds
        self.maxConnections = maxConnections
        self.shutdownGracePeriod = shutdownGracePeriod
    }

    /// The number of processors online, at least 1.
    public static var processorCount: Int {
        max(1, sysconf(Int32(_SC_NPROCESSORS_ONLN)))
    }

    /// Checks every field, naming the first one at fault.
    func validate() throws(HTTPServerError) {
        func fail(_ message: String) -> HTTPServerError { HTTPServerError(.invalidConfiguration, message) }
        guard (0...65535).contains(port) else { throw fail("port \(port) is outside 0...65535") }
        guard (1...1024).contains(workerThreads) else { throw fail("workerThreads must be 1...1024") }
        guard maxBodyBytes >= 0 else { throw fail("maxBodyBytes must not be negative") }
        guard connectionTimeoutSeconds >= 0 else { throw fail("connectionTimeoutSeconds must not be negative") }
        guard maxConnections > 0 else { throw fail("maxConnections must be positive") }
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
