/// An incremental HTTP/1.1 response decoder for the load tools' raw sockets: status line and headers, then the
/// body by `Content-Length`, `Transfer-Encoding: chunked` or until the connection closes.
///
/// Pure: bytes in, decoded body bytes out, so the socket code around it stays small.
public struct HTTPResponseDecoder: Sendable {
    private enum State: Sendable {
        case head
        case fixed(remaining: Int)
        case chunkSize
        case chunkData(remaining: Int)
        case chunkEnd
        case trailers
        case untilClose
        case done
    }

    /// The largest header block accepted.
    public static let maximumHeadBytes = 64 * 1024

    /// The response status, once the head has arrived.
    public private(set) var status: Int?
    /// Response headers by lowercased name, once the head has arrived.
    public private(set) var headers: [String: String] = [:]
    private var state = State.head
    private var pending: [UInt8] = []
    private var start = 0

    /// A decoder waiting for a response head.
    public init() {}

    /// Whether the whole response has been decoded (never, for a body that runs until the connection closes).
    public var isComplete: Bool {
        if case .done = state { return true }
        return false
    }

    /// Feeds bytes read from the socket; returns the body bytes they completed. Throws on a malformed response.
    public mutating func feed(_ bytes: some Collection<UInt8>) throws(LoopbackError) -> [UInt8] {
        pending.append(contentsOf: bytes)
        var body: [UInt8] = []
        loop: while true {
            switch state {
            case .head:
                guard let end = find([13, 10, 13, 10]) else {
                    if pending.count - start > Self.maximumHeadBytes { throw LoopbackError("response head too large") }
                    break loop
                }
                try parseHead(pending[start..<end])
                start = end + 4
            case .fixed(let remaining):
                let n = min(remaining, pending.count - start)
                body += pending[start..<start + n]
                start += n
                state = remaining == n ? .done : .fixed(remaining: remaining - n)
                if remaining != n { break loop }
            case .chunkSize:
                guard let end = find([13, 10]) else { break loop }
                let line = pending[start..<end].prefix { $0 != UInt8(ascii: ";") }
                guard let size = Int(String(decoding: line, as: UTF8.self).trimmingSpaces, radix: 16), size >= 0
                else { throw LoopbackError("bad chunk size in a chunked response") }
                start = end + 2
                state = size == 0 ? .trailers : .chunkData(remaining: size)
            case .chunkData(let remaining):
                let n = min(remaining, pending.count - start)
                body += pending[start..<start + n]
                start += n
                if remaining != n {
                    state = .chunkData(remaining: remaining - n)
                    break loop
                }
                state = .chunkEnd
            case .chunkEnd:
                guard pending.count - start >= 2 else { break loop }
                guard pending[start] == 13 && pending[start + 1] == 10 else {
                    throw LoopbackError("chunk without CRLF")
                }
                start += 2
                state = .chunkSize
            case .trailers:
                guard let end = find([13, 10]) else { break loop }
                let empty = end == start
                start = end + 2
                if empty { state = .done }
            case .untilClose:
                body += pending[start...]
                start = pending.count
                break loop
            case .done:
                break loop
            }
        }
        if start > 0 && start * 2 >= pending.count {
            pending.removeFirst(start)
            start = 0
        }
        return body
    }

    private func find(_ needle: [UInt8]) -> Int? {
        guard pending.count - start >= needle.count else { return nil }
        var i = start
        let last = pending.count - needle.count
        while i <= last {
            if pending[i] == needle[0] {
                var j = 1
                while j < needle.count && pending[i + j] == needle[j] { j += 1 }
                if j == needle.count { return i }
            }
            i += 1
        }
        return nil
    }

    private mutating func parseHead(_ bytes: ArraySlice<UInt8>) throws(LoopbackError) {
        let lines = String(decoding: bytes, as: UTF8.self).split(separator: "\r\n", omittingEmptySubsequences: false)
        let statusParts = (lines.first ?? "").split(separator: " ", maxSplits: 2)
        guard statusParts.count >= 2, statusParts[0].hasPrefix("HTTP/1."), let code = Int(statusParts[1]) else {
            throw LoopbackError("not an HTTP/1.x response: '\(lines.first ?? "")'")
        }
        status = code
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = String(line[line.index(after: colon)...]).trimmingSpaces
        }
        if code == 204 || code == 304 || (100..<200).contains(code) {
            state = .done
        } else if headers["transfer-encoding"]?.lowercased().contains("chunked") == true {
            state = .chunkSize
        } else if let length = headers["content-length"].flatMap({ Int($0) }) {
            state = length == 0 ? .done : .fixed(remaining: length)
        } else {
            state = .untilClose
        }
    }
}

extension String {
    /// The string without leading and trailing spaces and tabs.
    package var trimmingSpaces: String {
        let scalars = unicodeScalars.drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }
        return String(String.UnicodeScalarView(scalars.reversed()))
    }
}
