import Dispatch
import Synchronization

/// A server-sent events stream (`text/event-stream`) for one client, with a bounded buffer.
///
/// The owner sends events from any thread; the server pulls them without holding a thread per client. When the
/// client reads more slowly than events arrive, the oldest queued events are dropped (and counted in
/// `droppedEvents`) so memory stays bounded. Heartbeats: with `heartbeatInterval` set, a timer queues a comment
/// line every interval (15 s by default) so proxies keep the connection open and a vanished client is noticed;
/// pass nil to drive heartbeats yourself with `comment(_:)`.
///
/// ```swift
/// router.get("/v1/fleet/stream") { request in
///     let stream = EventStream()
///     hub.subscribe(stream, after: request.header("Last-Event-ID"))   // calls stream.send(...) later
///     stream.onClose { hub.unsubscribe(stream) }
///     return stream.response()
/// }
/// ```
public final class EventStream: ResponseStream {
    /// The most events queued at once; older ones are dropped first.
    public let capacity: Int
    private let state: Mutex<State>
    private let heartbeat: HeartbeatTimer?

    private struct State {
        var queue: [[UInt8]] = []
        var head = 0
        var queuedBytes = 0
        var dropped = 0
        var finished = false
        var closed = false
        var waker: (@Sendable () -> Void)?
        var onClose: [@Sendable () -> Void] = []

        var count: Int { queue.count - head }

        /// Takes the waker, if the server is waiting.
        mutating func take() -> (@Sendable () -> Void)? {
            defer { waker = nil }
            return waker
        }

        /// Reclaims the sent prefix once it is half the array.
        mutating func compact() {
            if head > 32 && head * 2 >= queue.count {
                queue.removeFirst(head)
                head = 0
            }
        }
    }

    /// Creates a stream holding at most `capacity` unsent events, with a heartbeat comment every
    /// `heartbeatInterval` (nil: no timer).
    public init(capacity: Int = 256, heartbeatInterval: Duration? = .seconds(15)) {
        precondition(capacity > 0, "an event stream needs room for at least one event")
        self.capacity = capacity
        self.state = Mutex(State())
        self.heartbeat = heartbeatInterval.map(HeartbeatTimer.init(interval:))
        heartbeat?.start { [weak self] in self?.comment("heartbeat") }
    }

    /// Queues an event: optional `event` type and `id` (sent back by the browser as `Last-Event-ID`), and `data`
    /// (split on newlines into `data:` lines). Ignored after `finish()` or once the client is gone.
    public func send(event: String? = nil, id: String? = nil, data: String) {
        var text = ""
        if let event { text += "event: \(Self.singleLine(event))\n" }
        if let id { text += "id: \(Self.singleLine(id))\n" }
        for line in data.split(separator: "\n", omittingEmptySubsequences: false) { text += "data: \(line)\n" }
        enqueue(Array((text + "\n").utf8))
    }

    /// Queues a comment line (`: text`), which clients ignore; used for heartbeats.
    public func comment(_ text: String = "") {
        enqueue(Array(": \(Self.singleLine(text))\n\n".utf8))
    }

    /// Ends the stream once the queued events are sent.
    public func finish() {
        let waker = state.withLock { state -> (@Sendable () -> Void)? in
            state.finished = true
            return state.take()
        }
        stopHeartbeat()
        waker?()
    }

    /// Runs `action` when the stream closes (client gone, server stopping, or finished and sent); at once if
    /// it already has.
    public func onClose(_ action: @escaping @Sendable () -> Void) {
        let runNow = state.withLock { state -> Bool in
            if state.closed { return true }
            state.onClose.append(action)
            return false
        }
        if runNow { action() }
    }

    /// How many events were dropped because the client read too slowly.
    public var droppedEvents: Int { state.withLock { $0.dropped } }
    /// How many events (and comments) wait to be sent.
    public var queuedEvents: Int { state.withLock { $0.count } }
    /// How many bytes wait to be sent.
    public var queuedBytes: Int { state.withLock { $0.queuedBytes } }
    /// Whether the stream is closed (client gone, server stopping, or done).
    public var isClosed: Bool { state.withLock { $0.closed } }

    /// A `200` response streaming this, with `text/event-stream` and `Cache-Control: no-cache`.
    public func response(headers: [(name: String, value: String)] = []) -> HTTPResponse {
        HTTPResponse(
            status: 200,
            headers: [
                ("Content-Type", "text/event-stream"), ("Cache-Control", "no-cache"), ("X-Accel-Buffering", "no"),
            ]
                + headers,
            body: .stream(self))
    }

    // MARK: ResponseStream

    /// Everything queued (up to 64 KiB at a time), `.pending` when empty, `.end` once finished and drained.
    public func next(waker: @escaping @Sendable () -> Void) -> StreamChunk {
        state.withLock { state in
            if state.closed { return .end }
            if state.count == 0 {
                if state.finished { return .end }
                state.waker = waker
                return .pending
            }
            var out: [UInt8] = []
            while state.count > 0 && (out.isEmpty || out.count + state.queue[state.head].count <= 64 * 1024) {
                out += state.queue[state.head]
                state.queuedBytes -= state.queue[state.head].count
                state.queue[state.head] = []
                state.head += 1
            }
            state.compact()
            return .data(out)
        }
    }

    /// The client went away or the server is stopping: drop the queue, stop the heartbeat, run `onClose` actions.
    public func close() {
        let actions = state.withLock { state -> [@Sendable () -> Void] in
            guard !state.closed else { return [] }
            state.closed = true
            state.queue = []
            state.head = 0
            state.queuedBytes = 0
            state.waker = nil
            defer { state.onClose = [] }
            return state.onClose
        }
        stopHeartbeat()
        for action in actions { action() }
    }

    // MARK: Internals

    private func enqueue(_ bytes: [UInt8]) {
        let waker = state.withLock { state -> (@Sendable () -> Void)? in
            guard !state.closed, !state.finished else { return nil }
            if state.count == capacity {
                state.queuedBytes -= state.queue[state.head].count
                state.queue[state.head] = []
                state.head += 1
                state.dropped += 1
                state.compact()
            }
            state.queue.append(bytes)
            state.queuedBytes += bytes.count
            return state.take()
        }
        waker?()
    }

    private func stopHeartbeat() { heartbeat?.source.cancel() }

    private static func singleLine(_ text: String) -> String {
        text.contains(where: \.isNewline) ? String(text.map { $0.isNewline ? " " : $0 }) : text
    }
}

/// A repeating timer on a shared queue. `@unchecked Sendable`: dispatch sources are thread-safe to cancel.
private struct HeartbeatTimer: @unchecked Sendable {
    static let queue = DispatchQueue(label: "swiftcab.sse.heartbeat")
    let source: any DispatchSourceTimer
    let interval: Duration

    init(interval: Duration) {
        self.interval = interval
        self.source = DispatchSource.makeTimerSource(queue: HeartbeatTimer.queue)
    }

    func start(_ action: @escaping @Sendable () -> Void) {
        let nanoseconds = Int(interval / .nanoseconds(1))
        source.schedule(deadline: .now() + .nanoseconds(nanoseconds), repeating: .nanoseconds(nanoseconds))
        source.setEventHandler(handler: action)
        source.resume()
    }
}
