/// One server-sent event (`text/event-stream`, WHATWG HTML § 9.2).
public struct ServerSentEvent: Hashable, Sendable {
    /// The `event:` field; `message` when the server sent none.
    public var type: String
    /// The `data:` lines joined with newlines.
    public var data: String
    /// The last `id:` seen up to this event (what `Last-Event-ID` carries on a reconnect).
    public var lastEventID: String?

    /// Creates an event.
    public init(type: String = "message", data: String, lastEventID: String? = nil) {
        self.type = type
        self.data = data
        self.lastEventID = lastEventID
    }
}

/// Turns the bytes of an event stream into events, without I/O: feed it what the socket gives, in any pieces.
///
/// Lines end in CRLF, LF or CR; `:` lines are comments (heartbeats); `retry:` sets the reconnection delay. One
/// event is at most `maxEventBytes`: a larger one is skipped whole (counted in `oversizedEvents`) so a broken or
/// hostile server cannot grow memory.
public struct ServerSentEventParser: Sendable {
    /// The largest event kept, counting its field lines.
    public let maxEventBytes: Int
    /// The id to send as `Last-Event-ID` when reconnecting; survives `connectionEnded()`.
    public private(set) var lastEventID: String?
    /// The server's `retry:` in milliseconds, if it sent one.
    public private(set) var retryMilliseconds: Int?
    /// Events skipped because they were larger than `maxEventBytes`.
    public private(set) var oversizedEvents = 0
    /// Comment lines (`:` lines, the server's heartbeats) seen so far.
    public private(set) var comments = 0

    private var line: [UInt8] = []
    private var lineIsBlank = true
    private var data: [UInt8] = []
    private var hasData = false
    private var type: String?
    private var eventBytes = 0
    private var skipping = false
    private var afterCR = false
    private var atStreamStart = true

    /// A parser for events of at most `maxEventBytes` (64 KiB by default).
    public init(maxEventBytes: Int = 64 * 1024) {
        precondition(maxEventBytes > 0, "events need room")
        self.maxEventBytes = maxEventBytes
    }

    /// The events completed by `bytes`, in order.
    /// - Complexity: O(n) in the number of bytes.
    public mutating func feed(_ bytes: some Sequence<UInt8>) -> [ServerSentEvent] {
        var events: [ServerSentEvent] = []
        for byte in bytes {
            if afterCR {
                afterCR = false
                if byte == 0x0A { continue }  // the LF of a CRLF
            }
            switch byte {
            case 0x0A, 0x0D:
                afterCR = byte == 0x0D
                if let event = endLine() { events.append(event) }
            default:
                lineIsBlank = false
                eventBytes += 1
                if eventBytes > maxEventBytes {
                    if !skipping { oversizedEvents += 1 }
                    skipping = true
                    line.removeAll(keepingCapacity: true)
                    data.removeAll(keepingCapacity: true)
                }
                if !skipping { line.append(byte) }
            }
        }
        return events
    }

    /// The connection closed: a half-received event is dropped (the spec's rule); the last id is kept.
    public mutating func connectionEnded() {
        line.removeAll()
        lineIsBlank = true
        clearEvent()
        afterCR = false
        atStreamStart = true
    }

    private mutating func endLine() -> ServerSentEvent? {
        defer {
            line.removeAll(keepingCapacity: true)
            lineIsBlank = true
        }
        if atStreamStart {
            atStreamStart = false
            if line.starts(with: [0xEF, 0xBB, 0xBF]) { line.removeFirst(3) }  // a byte-order mark
        }
        if lineIsBlank {
            if skipping {
                clearEvent()
                return nil
            }
            return dispatch()
        }
        if skipping { return nil }
        eventBytes += 1  // the line end counts
        guard line.first != UInt8(ascii: ":") else {
            comments += 1
            return nil
        }
        let colon = line.firstIndex(of: UInt8(ascii: ":"))
        let name = String(decoding: line[..<(colon ?? line.endIndex)], as: UTF8.self)
        var value = colon.map { line[line.index(after: $0)...] } ?? []
        if value.first == UInt8(ascii: " ") { value = value.dropFirst() }
        switch name {
        case "data":
            if hasData { data.append(0x0A) }
            data.append(contentsOf: value)
            hasData = true
        case "event":
            type = String(decoding: value, as: UTF8.self)
        case "id":
            if !value.contains(0) { lastEventID = String(decoding: value, as: UTF8.self) }
        case "retry":
            if !value.isEmpty, value.allSatisfy({ (0x30...0x39).contains($0) }) {
                retryMilliseconds = Int(String(decoding: value, as: UTF8.self))
            }
        default:
            break  // unknown fields are ignored
        }
        return nil
    }

    private mutating func dispatch() -> ServerSentEvent? {
        defer { clearEvent() }
        guard hasData else { return nil }
        return ServerSentEvent(
            type: type.flatMap { $0.isEmpty ? nil : $0 } ?? "message", data: String(decoding: data, as: UTF8.self),
            lastEventID: lastEventID)
    }

    private mutating func clearEvent() {
        data.removeAll(keepingCapacity: true)
        hasData = false
        type = nil
        eventBytes = 0
        skipping = false
    }
}
