/// One server-sent event as a client sees it.
struct SSEEvent: Equatable {
    /// The `event:` type ("message" when absent).
    var type = "message"
    /// The `id:` field, if any.
    var id: String?
    /// The `data:` lines joined with newlines.
    var data = ""
}

/// An incremental `text/event-stream` parser (the WHATWG event-stream rules the load tools need): lines ending in
/// LF or CRLF, `event:`/`id:`/`data:` fields, comments (`:`) ignored, a blank line dispatching the event.
struct SSEEventParser {
    /// The longest line accepted; longer input is a broken stream.
    static let maximumLineBytes = 1 << 20

    private var line: [UInt8] = []
    private var current = SSEEvent()
    private var hasData = false
    /// Comment lines seen (heartbeats).
    private(set) var comments = 0

    /// Feeds body bytes; returns the events they completed.
    mutating func feed(_ bytes: some Collection<UInt8>) throws(BenchError) -> [SSEEvent] {
        var events: [SSEEvent] = []
        for byte in bytes {
            if byte == 10 {
                if line.last == 13 { line.removeLast() }
                if let event = take(line) { events.append(event) }
                line.removeAll(keepingCapacity: true)
            } else {
                line.append(byte)
                if line.count > Self.maximumLineBytes { throw BenchError("event-stream line longer than 1 MiB") }
            }
        }
        return events
    }

    private mutating func take(_ line: [UInt8]) -> SSEEvent? {
        if line.isEmpty {
            defer {
                current = SSEEvent()
                hasData = false
            }
            return hasData ? current : nil
        }
        if line[0] == UInt8(ascii: ":") {
            comments += 1
            return nil
        }
        let colon = line.firstIndex(of: UInt8(ascii: ":")) ?? line.count
        let field = String(decoding: line[..<colon], as: UTF8.self)
        var valueStart = min(colon + 1, line.count)
        if valueStart < line.count && line[valueStart] == UInt8(ascii: " ") { valueStart += 1 }
        let value = String(decoding: line[valueStart...], as: UTF8.self)
        switch field {
        case "event": current.type = value
        case "id": current.id = value
        case "data":
            current.data += hasData ? "\n" + value : value
            hasData = true
        default: break
        }
        return nil
    }
}
