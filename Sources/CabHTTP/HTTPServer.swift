import CMicroHTTPD
import Foundation
import Synchronization

/// Maps an error a handler threw (other than `HTTPError`) to the response the client sees.
public typealias HTTPErrorMapper = @Sendable (any Error, HTTPRequest) -> HTTPResponse

/// An HTTP/1.1 server over libmicrohttpd: a few epoll worker threads read requests and write responses, a bounded
/// handler pool runs the `Router`'s handlers while their connections wait parked (routes registered `.inline` run
/// on the epoll threads), bodies are bounded, streams are parked (suspended) while they have nothing to send.
///
/// ```swift
/// let server = HTTPServer(configuration: .init(port: 0), router: router, metrics: metrics,
///                         accessLog: { line in writeToStderr(line) })
/// let port = try server.start()
/// server.shutdown()   // stop accepting, let in-flight requests finish, stop
/// ```
public final class HTTPServer: Sendable {
    /// The configuration the server was created with.
    public let configuration: HTTPServerConfiguration
    let router: Router
    let metrics: MetricsRegistry
    let accessLog: (@Sendable (String) -> Void)?
    let errorMapper: HTTPErrorMapper
    let requestsTotal: Counter
    let requestDuration: Histogram
    let inFlight = InFlightRequests()
    let streams = Mutex<[ObjectIdentifier: StreamContext]>([:])
    /// Runs the handlers of routes not registered `.inline`; nil when `handlerThreads` is 0 (all inline).
    let pool: HandlerPool?
    /// Requests parked on a `DeferredResponse` (a pool job or a handler's deferred answer), for shutdown.
    let parked = Mutex<[ObjectIdentifier: DeferredResponse]>([:])
    /// Requests refused because the handler pool's queue was full.
    let busyRefusals: Counter
    /// Requests whose handler ran on the pool, by route (an `.inlineUnlessParked` route counts only when parked).
    let pooledRequests: Counter
    private let lifecycle = Mutex<Lifecycle>(.idle)
    /// Set once `shutdown()` begins: responses then carry `Connection: close`.
    let isStopping = Atomic<Bool>(false)
    /// Set once the grace period is over: a request parked from here on is answered 503 at once.
    let abandonsParked = Atomic<Bool>(false)
    /// Header and body read deadlines per connection.
    let deadlines: ConnectionDeadlines

    private enum Lifecycle {
        case idle
        case running(DaemonHandle, port: Int)
        case stopped
    }

    /// Creates a server; nothing listens until `start()`.
    /// - Parameters:
    ///   - metrics: where `http_requests_total` and `http_request_duration_seconds` are recorded.
    ///   - accessLog: receives one JSON line per finished request (no trailing newline).
    ///   - errorLog: receives one JSON line per unexpected error the default `errorMapper` handles.
    ///   - errorMapper: turns errors other than `HTTPError` into responses; the default answers a generic 500.
    public init(
        configuration: HTTPServerConfiguration = HTTPServerConfiguration(), router: Router,
        metrics: MetricsRegistry = MetricsRegistry(), accessLog: (@Sendable (String) -> Void)? = nil,
        errorLog: (@Sendable (String) -> Void)? = nil, errorMapper: HTTPErrorMapper? = nil
    ) {
        self.configuration = configuration
        self.router = router
        self.metrics = metrics
        self.accessLog = accessLog
        self.errorMapper = errorMapper ?? HTTPServer.defaultErrorMapper(log: errorLog)
        self.requestsTotal = metrics.counter(
            "http_requests_total", help: "HTTP requests answered, by route pattern, method and status.",
            labelNames: ["route", "method", "status"])
        self.deadlines = ConnectionDeadlines(
            headerTimeout: configuration.requestHeaderTimeout, bodyTimeout: configuration.requestBodyTimeout,
            sweepInterval: configuration.deadlineSweepInterval, metrics: metrics)
        self.pool =
            configuration.handlerThreads > 0
            ? HandlerPool(
                threads: configuration.handlerThreads, queueCapacity: max(1, configuration.handlerQueueLength),
                niceness: configuration.handlerNiceness)
            : nil
        self.busyRefusals = metrics.counter(
            "http_requests_refused_busy_total",
            help: "Requests answered 503 server_busy because every handler thread was busy and the queue was full.")
        self.pooledRequests = metrics.counter(
            "http_requests_pooled_total",
            help: "Requests whose handler ran on the handler pool, the connection parked meanwhile, by route.",
            labelNames: ["route"])
        self.requestDuration = metrics.histogram(
            "http_request_duration_seconds", help: "Time from request headers to the last byte sent, by route.",
            labelNames: ["route"])
    }

    /// The bound port while running, else nil.
    public var port: Int? {
        lifecycle.withLock { state in
            if case .running(_, let port) = state { return port }
            return nil
        }
    }

    /// Requests waiting for a handler thread and handler threads busy now (both 0 without a pool).
    public var handlerLoad: (waiting: Int, running: Int) { pool?.load ?? (0, 0) }

    /// Starts listening (`MHD_start_daemon`) and returns the bound port (`MHD_get_daemon_info`).
    @discardableResult
    public func start() throws(HTTPServerError) -> Int {
        try configuration.validate()
        let descriptors = Self.raiseDescriptorLimit()
        // Keep descriptors for the store, the map files and the log: connections get what is left.
        let connectionLimit = max(1, min(configuration.maxConnections, descriptors - 128))
        let host: String? =
            switch configuration.host {
            case "", "*": nil
            case "localhost": "127.0.0.1"
            default: configuration.host
            }
        let started: Result<Int, HTTPServerError> = lifecycle.withLock { state in
            guard case .idle = state else {
                return .failure(HTTPServerError(.invalidState, "the server was already started"))
            }
            // The daemon holds one reference to the server until `shutdown()` stops it.
            let context = Unmanaged.passRetained(self).toOpaque()
            let daemon: OpaquePointer? = withOptionalCString(host) { hostPointer in
                var options = cab_mhd_options(
                    host: hostPointer, port: UInt16(configuration.port),
                    thread_pool_size: UInt32(configuration.workerThreads),
                    connection_limit: UInt32(connectionLimit),
                    connection_timeout_seconds: UInt32(configuration.connectionTimeoutSeconds),
                    access_handler: cabAccessHandler, access_handler_cls: context,
                    completed: cabRequestCompleted, completed_cls: context,
                    per_ip_connection_limit: UInt32(configuration.maxConnectionsPerAddress),
                    connection_memory_limit: configuration.connectionMemoryBytes,
                    notify_connection: cabNotifyConnection, notify_connection_cls: context,
                    uri_log: cabURILog, uri_log_cls: context)
                return cab_mhd_start(&options)
            }
            guard let daemon else {
                Unmanaged<HTTPServer>.fromOpaque(context).release()
                let reason = errno == 0 ? "" : " (\(String(cString: strerror(errno))))"
                return .failure(
                    HTTPServerError(
                        .startFailed,
                        "cannot listen on \(configuration.host):\(configuration.port)\(reason); "
                            + "check that the host is a numeric address of this machine and the port is free"))
            }
            let port = Int(cab_mhd_bound_port(daemon))
            state = .running(DaemonHandle(daemon), port: port)
            deadlines.startSweeping()
            pool?.start()
            return .success(port)
        }
        return try started.get()
    }

    /// Stops gracefully: stops accepting (`MHD_quiesce_daemon`), ends open streams, waits up to the grace period
    /// for in-flight requests, then stops the handler pool (requests still queued are answered 503), resumes
    /// every request still parked with a 503 (libmicrohttpd must not stop with suspended connections), and stops
    /// the worker threads (`MHD_stop_daemon`). Idempotent.
    public func shutdown() {
        let handle: DaemonHandle? = lifecycle.withLock { state in
            guard case .running(let handle, _) = state else { return nil }
            state = .stopped
            return handle
        }
        guard let handle else {
            lifecycle.withLock { state in if case .idle = state { state = .stopped } }
            return
        }
        isStopping.store(true, ordering: .sequentiallyConsistent)
        let listener = MHD_quiesce_daemon(handle.daemon)
        // New connections are refused from here on (a listening socket shut down answers SYNs with a reset)...
        if listener >= 0 { _ = Glibc.shutdown(listener, Int32(SHUT_RDWR)) }
        for stream in streams.withLock({ Array($0.values) }) { stream.endForShutdown() }
        inFlight.waitUntilIdle(timeout: configuration.shutdownGracePeriod)
        // Past the grace period: queued requests are not started, and whatever is still parked (a handler still
        // running, a write not yet durable) is resumed and answered 503; their closures still run when they end.
        pool?.stop()
        abandonsParked.store(true, ordering: .sequentiallyConsistent)
        for pending in parked.withLock({ Array($0.values) }) { pending.abandonForShutdown() }
        inFlight.waitUntilIdle(timeout: .seconds(1))
        MHD_stop_daemon(handle.daemon)
        // ... but it is closed only once the worker threads are gone: closed earlier, its number could be reused (another
        // server in the same process, a file) while a worker still updates its epoll set for the listener, and
        // libmicrohttpd aborts the process when that update fails ("Failed to remove listen FD from epoll set").
        if listener >= 0 { close(listener) }
        deadlines.stop()
        Unmanaged.passUnretained(self).release()
    }

    /// The default mapper: 500 with a generic detail and the request id; the error goes to `log` as a JSON line.
    public static func defaultErrorMapper(log: (@Sendable (String) -> Void)?) -> HTTPErrorMapper {
        { error, request in
            log?(
                JSONLine.object([
                    ("time", .string(JSONLine.timestamp())), ("level", .string("error")),
                    ("message", .string("unhandled error")), ("request_id", .string(request.requestID)),
                    ("method", .string(request.method)),
                    ("path", .string(request.pathParameters["token"] == nil ? request.path : "(a path with a token)")),
                    ("error", .string(String(describing: error))),
                ]))
            return HTTPError(
                .internalError,
                detail: "The server failed to handle this request; quote the request id when reporting it."
            ).response(requestID: request.requestID)
        }
    }
}

extension HTTPServer {
    /// Raises this process's soft limit on open descriptors to its hard limit (`setrlimit(RLIMIT_NOFILE)`), so
    /// that idle connections do not exhaust a 1,024-descriptor default; returns the soft limit now in force.
    @discardableResult
    public static func raiseDescriptorLimit() -> Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 1024 }
        if limit.rlim_cur < limit.rlim_max {
            var raised = limit
            raised.rlim_cur = limit.rlim_max
            if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &raised) == 0 { limit = raised }
        }
        return Int(min(limit.rlim_cur, rlim_t(Int32.max)))
    }
}

/// The daemon pointer. `@unchecked Sendable`: libmicrohttpd's daemon functions used here are thread-safe, and the
/// pointer is only stopped once, by `shutdown()` under the lifecycle mutex hand-over.
struct DaemonHandle: @unchecked Sendable {
    let daemon: OpaquePointer
    init(_ daemon: OpaquePointer) { self.daemon = daemon }
}

/// Counts requests between their first byte and their completion, so `shutdown()` can wait for them.
final class InFlightRequests: @unchecked Sendable {
    // `condition` protects `count`.
    private let condition = NSCondition()
    private var count = 0

    func enter() {
        condition.lock()
        count += 1
        condition.unlock()
    }

    func leave() {
        condition.lock()
        count -= 1
        if count == 0 { condition.broadcast() }
        condition.unlock()
    }

    func waitUntilIdle(timeout: Duration) {
        let seconds = Double(timeout.components.seconds) + Double(timeout.components.attoseconds) * 1e-18
        let deadline = Date().addingTimeInterval(seconds)
        condition.lock()
        while count > 0 && condition.wait(until: deadline) {}
        condition.unlock()
    }
}

private func withOptionalCString<R>(_ string: String?, _ body: (UnsafePointer<CChar>?) -> R) -> R {
    guard let string else { return body(nil) }
    return string.withCString { body($0) }
}
