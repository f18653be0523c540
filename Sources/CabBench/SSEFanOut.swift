import CabClient
import CabLoopback

#if canImport(Glibc)
    import Glibc
#endif

/// Many server-sent-event clients in one thread: raw non-blocking sockets to 127.0.0.1 under one `poll` loop (no
/// thread per connection; Glibc's module has `poll` but not `epoll`, and one `poll` over 5,000 sockets every few
/// milliseconds costs far less than the events it reads). Counts events and measures delivery latency from the send time the server writes into
/// each event's JSON data (a `time` field by default) against the local wall clock.
///
/// ```swift
/// let fanOut = SSEFanOut(configuration: .init(port: port, path: "/v1/fleet/stream", clients: 5000))
/// try fanOut.connect()          // opens the streams, at most `connectsInFlight` handshakes at a time
/// startPublishing()             // whatever makes the server send events
/// let result = fanOut.measure(seconds: 10)
/// fanOut.closeAll()
/// ```
package final class SSEFanOut {
    /// What to connect to and how many.
    package struct Configuration {
        /// The server's port on 127.0.0.1.
        package var port: Int
        /// The stream's path and query.
        package var path: String
        /// Extra request headers (e.g. `Authorization`).
        package var headers: [(String, String)] = []
        /// Streams to open.
        package var clients = 5000
        /// Handshakes (connect, request, response head) in progress at once.
        package var connectsInFlight = 256
        /// How long opening every stream may take.
        package var connectTimeoutSeconds = 60.0
        /// The JSON field holding the event's send time.
        package var timeField = "time"
    }

    /// What one measurement window saw.
    package struct Result {
        package var clientsRequested: Int
        /// Streams that answered 200 and were still open when the window began.
        package var clientsConnected: Int
        /// Streams that failed to connect or were answered with another status.
        package var clientsFailed: Int
        /// Streams the server closed during the window.
        package var clientsClosed: Int
        package var connectSeconds: Double
        package var windowSeconds: Double
        package var events: Int
        package var eventsWithoutTime: Int
        package var heartbeats: Int
        package var bytes: Int
        package var p50DeliveryMilliseconds: Double?
        package var p99DeliveryMilliseconds: Double?
        package var maxDeliveryMilliseconds: Double?
        /// The first failure, for the report.
        package var firstFailure: String?

        package var eventsPerSecond: Double { windowSeconds > 0 ? Double(events) / windowSeconds : 0 }
    }

    private final class Connection {
        package let fd: Int32
        package var streaming = false
        package var dead = false
        package var decoder = HTTPResponseDecoder()
        package var parser = ServerSentEventParser()
        package init(fd: Int32) { self.fd = fd }
    }

    package let configuration: Configuration
    private var connections: [Connection] = []
    private var pollFDs: [pollfd] = []
    private var handshaking = 0
    private var failed = 0
    private var closedDuringWindow = 0
    private var connectSeconds = 0.0
    private var firstFailure: String?
    private var measuring = false
    private var samples = LatencySamples()
    private var events = 0
    private var eventsWithoutTime = 0
    private var heartbeats = 0
    private var bytes = 0
    private var buffer = [UInt8](repeating: 0, count: 64 * 1024)
    private let requestBytes: [UInt8]

    /// Prepares the request and raises the open-file limit for `clients` sockets.
    package init(configuration: Configuration) {
        self.configuration = configuration
        requestBytes = LoopbackSocket.request(
            method: "GET", path: configuration.path, headers: [("Accept", "text/event-stream")] + configuration.headers,
            keepAlive: true)
        LoopbackSocket.raiseOpenFileLimit(to: configuration.clients + 1024)
    }

    deinit { closeAll() }

    /// Opens every stream, waiting until each has answered (or failed) or the connect timeout passed.
    package func connect() {
        let start = monotonicSeconds()
        var opened = 0
        while monotonicSeconds() - start < configuration.connectTimeoutSeconds {
            while opened < configuration.clients && handshaking < configuration.connectsInFlight {
                opened += 1
                do {
                    let fd = try LoopbackSocket.connect(port: configuration.port, nonBlocking: true)
                    connections.append(Connection(fd: fd))
                    pollFDs.append(pollfd(fd: fd, events: Int16(POLLOUT), revents: 0))
                    handshaking += 1
                } catch {
                    fail(error.message)
                }
            }
            if opened == configuration.clients && handshaking == 0 { break }
            poll(timeoutMilliseconds: 50)
        }
        connectSeconds = monotonicSeconds() - start
    }

    /// Reads events for `seconds` and reports them; events before this call are not counted.
    package func measure(seconds: Double) -> Result {
        measuring = true
        samples = LatencySamples()
        events = 0
        eventsWithoutTime = 0
        heartbeats = 0
        bytes = 0
        closedDuringWindow = 0
        let connected = connections.filter(\.streaming).count
        let start = monotonicSeconds()
        while monotonicSeconds() - start < seconds {
            poll(timeoutMilliseconds: 20)
        }
        let window = monotonicSeconds() - start
        measuring = false
        return Result(
            clientsRequested: configuration.clients, clientsConnected: connected, clientsFailed: failed,
            clientsClosed: closedDuringWindow, connectSeconds: connectSeconds, windowSeconds: window, events: events,
            eventsWithoutTime: eventsWithoutTime, heartbeats: heartbeats, bytes: bytes,
            p50DeliveryMilliseconds: samples.percentile(50), p99DeliveryMilliseconds: samples.percentile(99),
            maxDeliveryMilliseconds: samples.percentile(100), firstFailure: firstFailure)
    }

    /// Closes every stream.
    package func closeAll() {
        for connection in connections { close(connection.fd) }
        connections.removeAll()
        pollFDs.removeAll()
        handshaking = 0
    }

    // MARK: The loop

    private func poll(timeoutMilliseconds: Int32) {
        let n = Glibc.poll(&pollFDs, nfds_t(pollFDs.count), timeoutMilliseconds)
        guard n > 0 else { return }
        var index = 0
        while index < pollFDs.count {
            let revents = pollFDs[index].revents
            let connection = connections[index]
            if revents & Int16(POLLOUT) != 0 && !connection.streaming && pollFDs[index].events == Int16(POLLOUT) {
                if sendRequest(connection) { pollFDs[index].events = Int16(POLLIN) } else { connection.dead = true }
            }
            if revents & Int16(POLLIN | POLLHUP | POLLERR) != 0 && !connection.dead { receive(connection) }
            index += 1
        }
        if connections.contains(where: \.dead) {
            var kept: [Connection] = []
            var keptFDs: [pollfd] = []
            for (connection, entry) in zip(connections, pollFDs) where !connection.dead {
                kept.append(connection)
                keptFDs.append(pollfd(fd: entry.fd, events: entry.events, revents: 0))
            }
            connections = kept
            pollFDs = keptFDs
        }
    }

    /// Sends the request once the connect finished; false (and the connection dropped) when it failed.
    private func sendRequest(_ connection: Connection) -> Bool {
        var error: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        getsockopt(connection.fd, SOL_SOCKET, SO_ERROR, &error, &length)
        guard error == 0 else {
            drop(connection, reason: "connect: \(String(cString: strerror(error)))")
            return false
        }
        // The request is a few hundred bytes: a fresh socket's send buffer takes it whole.
        let n = requestBytes.withUnsafeBytes { send(connection.fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        guard n == requestBytes.count else {
            drop(connection, reason: "send: \(errnoText())")
            return false
        }
        return true
    }

    private func receive(_ connection: Connection) {
        while true {
            let n = buffer.withUnsafeMutableBytes { recv(connection.fd, $0.baseAddress, $0.count, 0) }
            if n < 0 && errno == EINTR { continue }
            if n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) { return }
            guard n > 0 else {
                drop(connection, reason: n == 0 ? "closed by the server" : "recv: \(errnoText())")
                return
            }
            if measuring { bytes += n }
            do {
                let wasStreaming = connection.streaming
                let body = try connection.decoder.feed(buffer[0..<n])
                if !wasStreaming, let status = connection.decoder.status {
                    guard status == 200 else {
                        drop(connection, reason: "answered \(status) instead of 200")
                        return
                    }
                    connection.streaming = true
                    handshaking -= 1
                }
                let before = connection.parser.comments
                for event in connection.parser.feed(body) { count(event) }
                if measuring { heartbeats += connection.parser.comments - before }
            } catch {
                drop(connection, reason: error.message)
                return
            }
        }
    }

    private func count(_ event: ServerSentEvent) {
        guard measuring else { return }
        events += 1
        if let sent = EventTimestamp.milliseconds(in: event.data, field: configuration.timeField) {
            samples.add(wallClockMilliseconds() - sent)
        } else {
            eventsWithoutTime += 1
        }
    }

    private func drop(_ connection: Connection, reason: String) {
        if connection.streaming {
            if measuring { closedDuringWindow += 1 }
        } else {
            handshaking -= 1
            fail(reason)
        }
        close(connection.fd)
        connection.dead = true
    }

    private func fail(_ reason: String) {
        failed += 1
        if firstFailure == nil { firstFailure = reason }
    }
}
