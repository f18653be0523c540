import Foundation
import Logging
import Synchronization

/// swift-log's handler for `cab`: one JSON object per line on standard error, `time`, `level` and `message` first,
/// then the metadata (the logger's, then the call's) as string members, sorted by key (STYLE.md §5).
///
/// Tokens never reach the log: a metadata value under a key naming a credential (`token`, `authorization`,
/// `secret`, `password`, `pin`), or one that looks like a SwiftCab bearer token (`rider_…`, `driver_…`,
/// `dispatcher_…` with a long random end), is written as `"[redacted]"`.
struct JSONLogHandler: LogHandler {
    /// Where finished lines go (standard error by default; tests of the handler could pass another sink).
    let sink: @Sendable (String) -> Void
    var logLevel: Logger.Level
    var metadata: Logger.Metadata = [:]
    var metadataProvider: Logger.MetadataProvider?

    /// A handler writing lines at `level` and above to `sink`.
    init(level: Logger.Level, sink: @escaping @Sendable (String) -> Void = JSONLogHandler.standardError) {
        self.logLevel = level
        self.sink = sink
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        var merged = metadata
        if let provided = metadataProvider?.get() { merged.merge(provided) { _, new in new } }
        if let own = event.metadata { merged.merge(own) { _, new in new } }
        if let error = event.error, merged["error"] == nil { merged["error"] = "\(error)" }
        sink(Self.line(time: Date(), level: event.level, message: event.message.description, metadata: merged))
    }

    /// The JSON line for one event (no trailing newline).
    static func line(time: Date, level: Logger.Level, message: String, metadata: Logger.Metadata) -> String {
        var out = "{\"time\":\"\(timestamp(time))\",\"level\":\"\(level.rawValue)\",\"message\":"
        appendQuoted(message, to: &out)
        for key in metadata.keys.sorted() where !["time", "level", "message"].contains(key) {
            out += ","
            appendQuoted(key, to: &out)
            out += ":"
            // `!`: the key came from the dictionary's own keys.
            appendQuoted(redacted(key: key, value: flatten(metadata[key]!)), to: &out)
        }
        out += "}"
        return out
    }

    /// A metadata value as one string (lists comma-separated, dictionaries as `k=v` pairs).
    static func flatten(_ value: Logger.Metadata.Value) -> String {
        switch value {
        case .string(let s): s
        case .stringConvertible(let c): c.description
        case .array(let items): items.map(flatten).joined(separator: ",")
        case .dictionary(let d):
            d.sorted { $0.key < $1.key }.map { "\($0.key)=\(flatten($0.value))" }.joined(separator: ",")
        }
    }

    private static let secretKeys = ["token", "authorization", "secret", "password"]
    private static let tokenPrefixes = ["rider_", "driver_", "dispatcher_", "device_"]

    /// `value`, or `[redacted]` when it is (or may be) a credential.
    static func redacted(key: String, value: String) -> String {
        let lowered = key.lowercased()
        if lowered == "pin" || secretKeys.contains(where: { lowered.contains($0) }) { return "[redacted]" }
        // Bearer tokens are a role prefix and 43 base64url characters (`TokenAuthority.newToken`).
        for prefix in tokenPrefixes where value.hasPrefix(prefix) && value.count >= prefix.count + 32 {
            if !value.contains(" ") { return "[redacted]" }
        }
        return value
    }

    static func appendQuoted(_ text: String, to out: inout String) {
        out += "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20:
                out +=
                    "\\u" + String(repeating: "0", count: 4 - String(scalar.value, radix: 16).count)
                    + String(scalar.value, radix: 16)
            default: out.unicodeScalars.append(scalar)
            }
        }
        out += "\""
    }

    /// UTC time with milliseconds, `2026-12-01T11:32:09.123Z`.
    static func timestamp(_ date: Date) -> String {
        // To the nearest millisecond: a truncated 0.007 s is 6 ms in binary floating point.
        let totalMilliseconds = Int64((date.timeIntervalSince1970 * 1000).rounded())
        var seconds = time_t(totalMilliseconds.quotientAndRemainder(dividingBy: 1000).quotient)
        let millis = Int(totalMilliseconds - Int64(seconds) * 1000)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func pad(_ n: Int32, _ width: Int = 2) -> String {
            let s = String(n)
            return String(repeating: "0", count: max(0, width - s.count)) + s
        }
        return "\(pad(parts.tm_year + 1900, 4))-\(pad(parts.tm_mon + 1))-\(pad(parts.tm_mday))T"
            + "\(pad(parts.tm_hour)):\(pad(parts.tm_min)):\(pad(parts.tm_sec)).\(pad(Int32(millis), 3))Z"
    }

    /// Serialises writers so that two threads' lines never interleave within a line.
    private static let writeLock = Mutex(())

    /// Writes `line` and a newline to standard error at once.
    @Sendable static func standardError(_ line: String) {
        let bytes = Array((line + "\n").utf8)
        writeLock.withLock { _ in
            var offset = 0
            while offset < bytes.count {
                let written = bytes[offset...].withUnsafeBytes { Glibc.write(2, $0.baseAddress, $0.count) }
                if written < 0 && errno == EINTR { continue }
                guard written > 0 else { return }  // stderr closed: nothing else to tell
                offset += written
            }
        }
    }
}
