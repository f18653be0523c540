import CMicroHTTPD
import Foundation
import Synchronization

/// Read deadlines per connection: libmicrohttpd's own timeout is an idle timeout, so a client that trickles one
/// header byte every few seconds is never cut off. Each connection here is in one phase at a time:
///
/// | phase | begins | deadline |
/// | --- | --- | --- |
/// | awaiting a request | connection opened, or the previous response completed | `requestHeaderTimeout` |
/// | reading the body | headers complete (the handler's first call) | `requestBodyTimeout` |
/// | serving | body complete (the handler ran) | none: streams and parked responses live on |
///
/// A sweeper thread checks every `sweepInterval` and shuts down (`shutdown(2)`) the socket of a connection past
/// its deadline; libmicrohttpd then sees the end of the stream and closes it. The table is keyed by the
/// connection pointer and an entry is removed when libmicrohttpd reports the connection closed, which it does
/// before closing the socket, so a socket number is never shut down after it was reused.
final class ConnectionDeadlines: Sendable {
    enum Phase: Sendable {
        case awaitingRequest
        case readingBody
        case serving
        case cutOff
    }

    struct Entry: Sendable {
        var socket: Int32
        var phase: Phase
        var since: ContinuousClock.Instant
    }

    let headerTimeout: Duration
    let bodyTimeout: Duration
    let sweepInterval: Duration
    private let entries = Mutex<[UInt: Entry]>([:])
    private let stopped = Atomic<Bool>(false)
    private let cutOffCounter: Counter

    init(headerTimeout: Duration, bodyTimeout: Duration, sweepInterval: Duration, metrics: MetricsRegistry) {
        self.headerTimeout = headerTimeout
        self.bodyTimeout = bodyTimeout
        self.sweepInterval = sweepInterval
        cutOffCounter = metrics.counter(
            "http_connections_cut_off_total",
            help: "Connections closed for missing a read deadline, by phase (headers or body).",
            labelNames: ["phase"])
    }

    static func key(_ connection: OpaquePointer) -> UInt {
        UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(connection)))
    }

    /// libmicrohttpd accepted a connection.
    func opened(_ connection: OpaquePointer) {
        let socket = cab_mhd_connection_fd(connection)
        guard socket >= 0 else { return }
        let entry = Entry(socket: socket, phase: .awaitingRequest, since: .now)
        entries.withLock { $0[Self.key(connection)] = entry }
    }

    /// libmicrohttpd is about to close a connection.
    func closed(_ connection: OpaquePointer) {
        _ = entries.withLock { $0.removeValue(forKey: Self.key(connection)) }
    }

    /// Moves a connection to `phase` (from the worker thread that owns it).
    func enter(_ phase: Phase, _ connection: OpaquePointer) {
        let now = ContinuousClock.now
        entries.withLock { table in
            let key = Self.key(connection)
            guard var entry = table[key], entry.phase != .cutOff else { return }
            entry.phase = phase
            entry.since = now
            table[key] = entry
        }
    }

    /// Connections tracked now (for tests and the gauge).
    var count: Int { entries.withLock { $0.count } }

    /// Shuts down every connection past its deadline at `now`; returns how many.
    @discardableResult
    func sweep(now: ContinuousClock.Instant = .now) -> Int {
        var cut: [(Int32, String)] = []
        entries.withLock { table in
            for (key, entry) in table {
                let limit: Duration
                let label: String
                switch entry.phase {
                case .awaitingRequest: (limit, label) = (headerTimeout, "headers")
                case .readingBody: (limit, label) = (bodyTimeout, "body")
                case .serving, .cutOff: continue
                }
                guard now - entry.since > limit else { continue }
                // Under the lock: the entry (and so its socket) cannot be closed and reused meanwhile.
                Glibc.shutdown(entry.socket, Int32(SHUT_RDWR))
                table[key]?.phase = .cutOff
                cut.append((entry.socket, label))
            }
        }
        for (_, label) in cut { cutOffCounter.increment(["phase": label]) }
        return cut.count
    }

    /// Runs `sweep()` every `sweepInterval` on a thread of its own until `stop()`.
    func startSweeping() {
        let thread = Thread { [self] in
            while !stopped.load(ordering: .relaxed) {
                Thread.sleep(forTimeInterval: Double(sweepInterval / .milliseconds(1)) / 1000)
                sweep()
            }
        }
        thread.name = "http-deadlines"
        thread.start()
    }

    /// Stops the sweeper (it ends within one interval).
    func stop() { stopped.store(true, ordering: .relaxed) }
}

/// `MHD_NotifyConnectionCallback`: a connection opened or is closing.
func cabNotifyConnection(
    _ cls: UnsafeMutableRawPointer?, _ connection: OpaquePointer?,
    _ socketContext: UnsafeMutablePointer<UnsafeMutableRawPointer?>?,
    _ code: MHD_ConnectionNotificationCode
) {
    guard let cls, let connection else { return }
    let server = Unmanaged<HTTPServer>.fromOpaque(cls).takeUnretainedValue()
    if code == .CONNECTION_NOTIFY_STARTED {
        server.deadlines.opened(connection)
    } else {
        server.deadlines.closed(connection)
    }
}

/// `MHD_OPTION_URI_LOG_CALLBACK`: the request line is in, headers are not. Creates the request's context (so
/// that a query with too many parameters or a URI too long is answered by `begin` with a problem) and cuts such
/// a query off before libmicrohttpd splits it.
func cabURILog(_ cls: UnsafeMutableRawPointer?, _ uri: UnsafePointer<CChar>?, _ connection: OpaquePointer?)
    -> UnsafeMutableRawPointer?
{
    guard let cls, let uri else { return nil }
    let server = Unmanaged<HTTPServer>.fromOpaque(cls).takeUnretainedValue()
    let length = strlen(uri)
    var parameters = 0
    var inQuery = false
    var position = 0
    var nulInPath = false
    while position < length {
        let byte = uri[position]
        if !inQuery && byte == CChar(UInt8(ascii: "%")) && position + 2 < length
            && uri[position + 1] == CChar(UInt8(ascii: "0"))
            && uri[position + 2] == CChar(UInt8(ascii: "0"))
        {
            nulInPath = true
        }
        if byte == CChar(UInt8(ascii: "?")) && !inQuery {
            inQuery = true
            parameters = 1
        } else if inQuery && (byte == CChar(UInt8(ascii: "&")) || byte == CChar(UInt8(ascii: ";"))) {
            parameters += 1
        }
        position += 1
    }
    let refusal: RequestContext.Refusal?
    if length > server.configuration.maxURIBytes {
        refusal = .uriTooLong(bytes: length)
    } else if parameters > server.configuration.maxQueryParameters {
        refusal = .tooManyParameters(count: parameters)
    } else if nulInPath {
        refusal = .nulInPath
    } else {
        refusal = nil
    }
    if case .tooManyParameters = refusal { cab_mhd_drop_query(uri) }
    if case .uriTooLong = refusal { cab_mhd_drop_query(uri) }
    let context = RequestContext(refusal: refusal)
    // The request owns one reference until `cabRequestCompleted` takes it back.
    return Unmanaged.passRetained(context).toOpaque()
}
