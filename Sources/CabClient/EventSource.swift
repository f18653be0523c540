import Foundation
import Synchronization

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension ClientError.Code {
    /// A live stream refused or broke off (its message says whether it will be retried).
    public static let stream = ClientError.Code("stream")
}

/// An `EventSource` for apps: follows a server-sent event stream, reconnecting with `Last-Event-ID` after a
/// break, with a bounded buffer of undelivered events.
///
/// It reads the body through a `URLSessionDataDelegate`, which streams bytes as they arrive both on Apple
/// platforms and on Linux (FoundationNetworking has no `URLSession.bytes(for:)`; its delegate calls do stream,
/// checked against `cab serve` in `EventSourceTests`).
///
/// ```swift
/// for await delivery in EventSource.deliveries(of: client.request("/v1/driver/stream")) {
///     if case .event(let event) = delivery { handle(event) }
/// }
/// ```
public enum EventSource {
    /// How to follow a stream.
    public struct Configuration: Sendable {
        /// The wait before the first reconnection when the server sent no `retry:`.
        public var reconnectDelay: Duration
        /// The longest wait between reconnections (the wait doubles after each failed attempt).
        public var maxReconnectDelay: Duration
        /// Undelivered events kept when the reader is slow; the oldest are dropped first.
        public var bufferCapacity: Int
        /// The largest event kept.
        public var maxEventBytes: Int
        /// A connection silent this long is considered broken (the server sends a heartbeat every 15 s).
        public var idleTimeoutSeconds: Double

        /// Creates a configuration.
        public init(
            reconnectDelay: Duration = .seconds(3), maxReconnectDelay: Duration = .seconds(60),
            bufferCapacity: Int = 256,
            maxEventBytes: Int = 64 * 1024, idleTimeoutSeconds: Double = 45
        ) {
            precondition(bufferCapacity > 0 && maxEventBytes > 0, "a stream needs room")
            self.reconnectDelay = reconnectDelay
            self.maxReconnectDelay = maxReconnectDelay
            self.bufferCapacity = bufferCapacity
            self.maxEventBytes = maxEventBytes
            self.idleTimeoutSeconds = idleTimeoutSeconds
        }
    }

    /// What the stream delivers, in order.
    public enum Delivery: Sendable, Equatable {
        /// A connection is open and streaming (first, and after every reconnection).
        case opened
        /// An event.
        case event(ServerSentEvent)
        /// The connection broke or the server ended it; it is retried after `retryIn`.
        case interrupted(ClientError.Code, message: String, retryIn: Duration)
        /// The server refused the stream for good (a 4xx other than 408 and 429); nothing more comes.
        case refused(ServerProblem)

        public static func == (a: Delivery, b: Delivery) -> Bool {
            switch (a, b) {
            case (.opened, .opened): true
            case (.event(let x), .event(let y)): x == y
            case (.interrupted(let c1, let m1, let r1), .interrupted(let c2, let m2, let r2)):
                c1 == c2 && m1 == m2 && r1 == r2
            case (.refused(let x), .refused(let y)): x == y
            default: false
            }
        }
    }

    /// Follows `request` until the consumer stops iterating (or the server refuses it); waits between
    /// reconnections on `clock`.
    public static func deliveries<C: Clock<Duration>>(
        of request: URLRequest, configuration: Configuration = .init(), clock: C = ContinuousClock()
    ) -> AsyncStream<Delivery> {
        AsyncStream(bufferingPolicy: .bufferingNewest(configuration.bufferCapacity)) { continuation in
            let task = Task {
                await follow(request, configuration: configuration, clock: clock) { continuation.yield($0) }
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    static func follow<C: Clock<Duration>>(
        _ request: URLRequest, configuration: Configuration, clock: C, deliver: @escaping @Sendable (Delivery) -> Void
    ) async {
        let parser = SharedParser(ServerSentEventParser(maxEventBytes: configuration.maxEventBytes))
        var failures = 0
        while !Task.isCancelled {
            var attempt = request
            attempt.setValue("text/event-stream", forHTTPHeaderField: "Accept")
            attempt.setValue("no-cache", forHTTPHeaderField: "Cache-Control")
            attempt.timeoutInterval = configuration.idleTimeoutSeconds
            if let id = parser.withLock({ $0.lastEventID }) {
                attempt.setValue(id, forHTTPHeaderField: "Last-Event-ID")
            }
            let connection = StreamConnection(parser: parser, deliver: deliver)
            let outcome = await connection.run(attempt, idleTimeoutSeconds: configuration.idleTimeoutSeconds)
            parser.withLock { $0.connectionEnded() }
            if Task.isCancelled { return }
            let code: ClientError.Code
            let message: String
            switch outcome {
            case .refused(let problem):
                deliver(.refused(problem))
                return
            case .ended(let opened):
                failures = opened ? 0 : failures + 1
                (code, message) = (.stream, "The live updates stopped; reconnecting.")
            case .failed(let error, let opened):
                failures = opened ? 1 : failures + 1
                (code, message) = (error.code, error.message)
            }
            let serverDelay = parser.withLock { $0.retryMilliseconds }.map { Duration.milliseconds($0) }
            let base = serverDelay ?? configuration.reconnectDelay
            var delay = base
            for _ in 0..<min(max(failures - 1, 0), 16) where delay < configuration.maxReconnectDelay { delay *= 2 }
            delay = min(delay, configuration.maxReconnectDelay)
            deliver(.interrupted(code, message: message, retryIn: delay))
            do {
                try await clock.sleep(for: delay)
            } catch {
                return  // cancelled while waiting
            }
        }
    }
}

/// The parser of one `EventSource`, shared by its connections (the last event id outlives a connection).
final class SharedParser: Sendable {
    private let mutex: Mutex<ServerSentEventParser>
    init(_ parser: ServerSentEventParser) { mutex = Mutex(parser) }
    func withLock<T: Sendable>(_ body: (inout ServerSentEventParser) -> T) -> T { mutex.withLock { body(&$0) } }
}

/// One HTTP connection of an `EventSource`: its own `URLSession` whose delegate feeds the parser.
final class StreamConnection: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    // @unchecked Sendable: the mutable state is in `state` (a Mutex); `parser` locks itself; `deliver` is Sendable.
    enum Outcome: Sendable {
        case ended(opened: Bool)
        case failed(ClientError, opened: Bool)
        case refused(ServerProblem)
    }

    private struct State {
        var opened = false
        var errorBody: [UInt8] = []
        var finished: CheckedContinuation<Outcome, Never>?
        var cancelled = false
        var task: URLSessionDataTask?
    }

    private let parser: SharedParser
    private let deliver: @Sendable (EventSource.Delivery) -> Void
    private let state = Mutex(State())
    private static let maxErrorBody = 16 * 1024

    init(parser: SharedParser, deliver: @escaping @Sendable (EventSource.Delivery) -> Void) {
        self.parser = parser
        self.deliver = deliver
    }

    /// Streams `request` until the body ends, fails, or the calling task is cancelled.
    func run(_ request: URLRequest, idleTimeoutSeconds: Double) async -> Outcome {
        let configuration = URLSessionConfiguration.default
        configuration.timeoutIntervalForRequest = idleTimeoutSeconds
        configuration.timeoutIntervalForResource = 7 * 24 * 3600
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        let session = URLSession(configuration: configuration, delegate: self, delegateQueue: nil)
        defer { session.invalidateAndCancel() }  // the session holds its delegate until invalidated
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Outcome, Never>) in
                let task = session.dataTask(with: request)
                let cancelled = state.withLock { s -> Bool in
                    s.finished = continuation
                    s.task = task
                    return s.cancelled
                }
                if cancelled { task.cancel() }
                task.resume()
            }
        } onCancel: {
            let task = state.withLock { s -> URLSessionDataTask? in
                s.cancelled = true
                return s.task
            }
            task?.cancel()
        }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let http = dataTask.response as? HTTPURLResponse
        let streaming =
            http?.statusCode == 200
            && (http?.value(forHTTPHeaderField: "Content-Type")?.lowercased().hasPrefix("text/event-stream") ?? false)
        guard streaming else {
            state.withLock { s in
                let room = max(0, Self.maxErrorBody - s.errorBody.count)
                s.errorBody += data.prefix(room)
            }
            return
        }
        let firstData = state.withLock { s -> Bool in
            defer { s.opened = true }
            return !s.opened
        }
        if firstData { deliver(.opened) }
        let events = parser.withLock { $0.feed(data) }
        for event in events { deliver(.event(event)) }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let (continuation, opened, body) = state.withLock { s in
            defer { s.finished = nil }
            return (s.finished, s.opened, s.errorBody)
        }
        let outcome: Outcome
        if let error {
            outcome = .failed(
                ClientError(.network, "The live updates lost the server; reconnecting.", underlying: error),
                opened: opened)
        } else if let http = task.response as? HTTPURLResponse, !opened || http.statusCode != 200 {
            let problem = ServerProblem(
                status: http.statusCode, data: Data(body), retryAfter: http.value(forHTTPHeaderField: "Retry-After"))
            let transient = http.statusCode >= 500 || http.statusCode == 408 || http.statusCode == 429
            if http.statusCode == 200 {
                outcome = .ended(opened: false)  // an empty 200 stream
            } else if transient {
                outcome = .failed(problem.error, opened: false)
            } else {
                outcome = .refused(problem)
            }
        } else {
            outcome = .ended(opened: opened)
        }
        continuation?.resume(returning: outcome)
    }
}
