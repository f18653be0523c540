import CabCore
import CabDispatch
import CabGeo
import CabHTTP
import CabTracking
import Synchronization

/// One dispatcher's `GET /v1/fleet/stream` as server-sent events, pulled by the server straight out of a
/// `FleetSubscription` (whose bounded buffer is the only per-client queue: a client that stops reading loses its
/// oldest positions, counted, and holds no more memory).
///
/// Each event is `event: position`, `id: N` (for `Last-Event-ID`) and one `data:` line of JSON:
/// `{"driver_id", "lat", "lon", "heading", "speed", "status", "vehicle_type", "updated_at", "time"}` where `time`
/// is the server's send time (the tick) in Unix milliseconds.
///
/// A client resuming after an id older than the replay window first gets `event: gap` with
/// `{"missed": N, "after": ID}` (the events no longer kept) and `event: snapshot` with `{"drivers": [...]}`, every
/// driver's latest position inside its box in the same shape, then the events kept.
final class FleetSSEStream: ResponseStream, FleetStreamClient {
    let subscription: FleetSubscription<DriverID>
    private let onClose: @Sendable (FleetSSEStream) -> Void
    private let state: Mutex<State>

    private struct State {
        var preamble: [UInt8]
        var heartbeatDue = false
        var waker: (@Sendable () -> Void)?
        var closed = false
        var reportedDropped = 0
    }

    /// A stream of `subscription`; `snapshot` (the fleet now) follows the gap event of a client that resumed
    /// after `resumedAfter` and missed events.
    init(
        subscription: FleetSubscription<DriverID>, resumedAfter: UInt64? = nil,
        snapshot: [(driver: DriverID, position: DriverPosition)] = [], now: Int64 = 0,
        onClose: @escaping @Sendable (FleetSSEStream) -> Void
    ) {
        self.subscription = subscription
        self.onClose = onClose
        var preamble = Array("retry: 3000\n: connected\n\n".utf8)
        if subscription.missedEvents > 0 {
            let after = resumedAfter.map { ",\"after\":\($0)" } ?? ""
            preamble += "event: gap\ndata: {\"missed\":\(subscription.missedEvents)\(after)}\n\n".utf8
            preamble += "event: snapshot\ndata: {\"drivers\":[".utf8
            for (i, entry) in snapshot.enumerated() {
                if i > 0 { preamble.append(UInt8(ascii: ",")) }
                Self.appendJSON(entry.driver, entry.position, time: now, to: &preamble)
            }
            preamble += "]}\n\n".utf8
        }
        state = Mutex(State(preamble: preamble))
    }

    /// The server's 200 response streaming this.
    func response() -> HTTPResponse {
        HTTPResponse(
            status: 200,
            headers: [
                ("Content-Type", "text/event-stream"), ("Cache-Control", "no-cache"), ("X-Accel-Buffering", "no"),
            ],
            body: .stream(self))
    }

    func next(waker: @escaping @Sendable () -> Void) -> StreamChunk {
        let prefix: [UInt8]? = state.withLock { state in
            if state.closed { return nil }
            state.waker = waker
            var out = state.preamble
            state.preamble = []
            if state.heartbeatDue {
                out += Array(": heartbeat\n\n".utf8)
                state.heartbeatDue = false
            }
            return out
        }
        guard let prefix else { return .end }
        switch subscription.next(limit: 512, waker: waker) {
        case .events(let events):
            var out = prefix
            for event in events { Self.append(event, to: &out) }
            return .data(out)
        case .pending:
            return prefix.isEmpty ? .pending : .data(prefix)
        case .end:
            return .end
        }
    }

    /// Queues a heartbeat comment (one at most, however long the client has not read) and wakes the server.
    func heartbeat() {
        let waker = state.withLock { state -> (@Sendable () -> Void)? in
            guard !state.closed else { return nil }
            state.heartbeatDue = true
            defer { state.waker = nil }
            return state.waker
        }
        waker?()
    }

    func close() {
        let first = state.withLock { state -> Bool in
            defer {
                state.closed = true
                state.waker = nil
            }
            return !state.closed
        }
        guard first else { return }
        onClose(self)
        subscription.close()
    }

    /// Events waiting in the client's buffer, and lost in all.
    var subscriptionCounts: (buffered: Int, dropped: Int) { subscription.counts }

    /// Events this client lost to its full buffer since the last call.
    func collectNewlyDropped() -> Int {
        let dropped = subscription.counts.dropped
        return state.withLock { state in
            defer { state.reportedDropped = max(state.reportedDropped, dropped) }
            return max(0, dropped - state.reportedDropped)
        }
    }

    static func append(_ event: FleetEvent<DriverID>, to out: inout [UInt8]) {
        out += "event: position\nid: \(event.id)\ndata: ".utf8
        appendJSON(event.driver, event.position, time: event.tickMilliseconds, to: &out)
        out += "\n\n".utf8
    }

    /// One driver's position as the `data:` JSON of a position event.
    static func appendJSON(_ driver: DriverID, _ p: DriverPosition, time: Int64, to out: inout [UInt8]) {
        var text = "{\"driver_id\":\"\(driver.rawValue)\""
        text += ",\"lat\":\(p.coordinate.latitude),\"lon\":\(p.coordinate.longitude)"
        text += ",\"heading\":" + (p.headingDegrees.map { String($0) } ?? "null")
        text += ",\"speed\":" + (p.speedMetersPerSecond.map { String($0) } ?? "null")
        text += ",\"status\":\"\(p.status.name)\",\"vehicle_type\":\"\(VehicleType(p.vehicleClass).rawValue)\""
        text += ",\"updated_at\":\"\(RFC3339.format(Instant(millisecondsSinceEpoch: p.timeMilliseconds)))\""
        text += ",\"time\":\(time)}"
        out += text.utf8
    }
}

extension TrackingService {
    /// A new fleet stream for one client: positions inside `boundingBox` (nil: all), resuming after `lastEventID`.
    func openStream(boundingBox: BoundingBox?, lastEventID: UInt64?) -> FleetSSEStream {
        let subscription = streams.subscribe(boundingBox: boundingBox, lastEventID: lastEventID)
        let snapshot = subscription.missedEvents > 0 ? fleet.positions(in: boundingBox) : []
        let stream = FleetSSEStream(
            subscription: subscription, resumedAfter: lastEventID, snapshot: snapshot,
            now: Instant.now().millisecondsSinceEpoch
        ) { [weak self] closed in self?.unregister(closed) }
        register(stream)
        return stream
    }
}

extension DriverStatus {
    /// The status as the API writes it: `available`, `busy` or `offline`.
    public var name: String {
        switch self {
        case .available: "available"
        case .busy: "busy"
        case .offline: "offline"
        }
    }

    /// Parses `available`, `busy` or `offline`.
    public init?(name: some StringProtocol) {
        guard let status = DriverStatus.allCases.first(where: { $0.name == name }) else { return nil }
        self = status
    }
}

extension VehicleType {
    /// The vehicle type an index class stands for (`standard` for classes without one).
    public init(_ vehicleClass: VehicleClass) {
        self = VehicleType.allCases.first { VehicleClass($0) == vehicleClass } ?? .standard
    }
}
