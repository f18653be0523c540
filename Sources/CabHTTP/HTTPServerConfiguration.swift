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
    /// Connections open at once from one client address (`MHD_OPTION_PER_IP_CONNECTION_LIMIT`); 0: no limit.
    public var maxConnectionsPerAddress: Int
    /// How long a connection may take to send a request's headers, from its opening or the end of the previous
    /// response (a keep-alive connection idle this long is closed too).
    public var requestHeaderTimeout: Duration
    /// How long a request may take to send its body once the headers are in.
    public var requestBodyTimeout: Duration
    /// How often deadlines are checked.
    public var deadlineSweepInterval: Duration
    /// The longest request target (path and query) read; longer ones are answered 414.
    public var maxURIBytes: Int
    /// The most query parameters read; more are answered 414.
    public var maxQueryParameters: Int
    /// The most header bytes read; more are answered 431.
    public var maxHeaderBytes: Int
    /// libmicrohttpd's memory per connection (`MHD_OPTION_CONNECTION_MEMORY_LIMIT`); requests larger than this
    /// are answered by libmicrohttpd itself (414 or 431 in HTML), so it must stay above the limits above (twice
    /// the URI and header limits, as libmicrohttpd reads the head into half of it). It is no larger than that:
    /// libmicrohttpd maps the pool afresh for every connection and touches it page by page, so its size is paid
    /// on every request. The default 80 KiB (against 256 KiB before) took `/healthz` p99 under trip load from
    /// 9.4 to 7.0 ms and trip transitions from 947 to 1,157/s (`cab bench api --trips`, docs/performance.md).
    public var connectionMemoryBytes: Int
    /// Threads of the handler pool, which runs every route not registered `.inline` while its connection waits
    /// parked; 0 runs every handler inline on the epoll threads (the behaviour before the pool, kept as a
    /// baseline for `cab bench api --trips`).
    public var handlerThreads: Int
    /// Requests that may wait for a handler thread; past this they are answered 503 with `Retry-After`.
    public var handlerQueueLength: Int
    /// The `Retry-After` seconds of that 503.
    public var busyRetryAfterSeconds: Int
    /// How far below the epoll threads the handler threads are scheduled (a `nice` increment, 0...19), so that
    /// `/healthz`, streams and parking are served first when handlers keep every core busy.
    public var handlerNiceness: Int

    /// Creates a configuration; every parameter has a serviceable default.
    public init(
        host: String = "127.0.0.1", port: Int = 8080, workerThreads: Int = HTTPServerConfiguration.processorCount,
        maxBodyBytes: Int = 1 << 20, connectionTimeoutSeconds: Int = 60, maxConnections: Int = 10_000,
        shutdownGracePeriod: Duration = .seconds(10), maxConnectionsPerAddress: Int = 256,
        requestHeaderTimeout: Duration = .seconds(10), requestBodyTimeout: Duration = .seconds(30),
        deadlineSweepInterval: Duration = .milliseconds(500), maxURIBytes: Int = 16_384, maxQueryParameters: Int = 200,
        maxHeaderBytes: Int = 16_384, connectionMemoryBytes: Int = 80 * 1024,
        handlerThreads: Int = HTTPServerConfiguration.defaultHandlerThreads, handlerQueueLength: Int = 1024,
        busyRetryAfterSeconds: Int = 1, handlerNiceness: Int = 5
    ) {
        self.handlerNiceness = handlerNiceness
        self.handlerThreads = handlerThreads
        self.handlerQueueLength = handlerQueueLength
        self.busyRetryAfterSeconds = busyRetryAfterSeconds
        self.maxConnectionsPerAddress = maxConnectionsPerAddress
        self.requestHeaderTimeout = requestHeaderTimeout
        self.requestBodyTimeout = requestBodyTimeout
        self.deadlineSweepInterval = deadlineSweepInterval
        self.maxURIBytes = maxURIBytes
        self.maxQueryParameters = maxQueryParameters
        self.maxHeaderBytes = maxHeaderBytes
        self.connectionMemoryBytes = connectionMemoryBytes
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

    /// The handler pool's default size: 4 per core, at least 8. Handlers mostly wait (a group commit's fsync, a
    /// lock), so the pool is larger than the CPU; but when they do run, each runnable handler thread takes its share
    /// of a core from the epoll threads, niceness or not: on two cores 16 threads gave `/healthz` p99 6.2 ms under
    /// trip load where 8 gave 4.2 ms, with as many transitions and bookings per second (docs/performance.md).
    public static var defaultHandlerThreads: Int { max(8, 4 * processorCount) }

    /// Checks every field, naming the first one at fault.
    func validate() throws(HTTPServerError) {
        func fail(_ message: String) -> HTTPServerError { HTTPServerError(.invalidConfiguration, message) }
        guard (0...65535).contains(port) else { throw fail("port \(port) is outside 0...65535") }
        guard (1...1024).contains(workerThreads) else { throw fail("workerThreads must be 1...1024") }
        guard maxBodyBytes >= 0 else { throw fail("maxBodyBytes must not be negative") }
        guard connectionTimeoutSeconds >= 0 else { throw fail("connectionTimeoutSeconds must not be negative") }
        guard maxConnections > 0 else { throw fail("maxConnections must be positive") }
        guard maxConnectionsPerAddress >= 0 else { throw fail("maxConnectionsPerAddress must not be negative") }
        guard requestHeaderTimeout > .zero, requestBodyTimeout > .zero, deadlineSweepInterval > .zero else {
            throw fail("the request timeouts and the sweep interval must be positive")
        }
        guard maxURIBytes > 0, maxQueryParameters > 0, maxHeaderBytes > 0 else {
            throw fail("maxURIBytes, maxQueryParameters and maxHeaderBytes must be positive")
        }
        guard (0...4096).contains(handlerThreads) else { throw fail("handlerThreads must be 0...4096 (0: inline)") }
        guard handlerQueueLength > 0 else { throw fail("handlerQueueLength must be positive") }
        guard (0...19).contains(handlerNiceness) else { throw fail("handlerNiceness must be 0...19") }
        guard busyRetryAfterSeconds >= 0 else { throw fail("busyRetryAfterSeconds must not be negative") }
        guard connectionMemoryBytes >= 2 * (maxURIBytes + maxHeaderBytes) + 64 * maxQueryParameters else {
            throw fail("connectionMemoryBytes must leave room for the URI, header and parameter limits")
        }
    }
}

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
