#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Builds one-line JSON objects for logs without an encoder per line.
enum JSONLine {
    /// A JSON value in a log line.
    enum Value {
        case string(String), int(Int), double(Double), bool(Bool)
    }

    /// `{"k":v,...}` with keys in the given order.
    static func object(_ fields: [(String, Value)]) -> String {
        var out = "{"
        for (index, (key, value)) in fields.enumerated() {
            if index > 0 { out += "," }
            appendString(key, to: &out)
            out += ":"
            switch value {
            case .string(let s): appendString(s, to: &out)
            case .int(let i): out += String(i)
            case .double(let d): out += d.isFinite ? String((d * 1000).rounded() / 1000) : "null"
            case .bool(let b): out += b ? "true" : "false"
            }
        }
        return out + "}"
    }

    /// Appends `string` as a JSON string literal.
    static func appendString(_ string: String, to out: inout String) { JSONString.append(string, to: &out) }

    /// The current UTC time as RFC 3339 with milliseconds ("2025-01-31T12:00:00.123Z").
    static func timestamp() -> String {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        var parts = tm()
        var seconds = now.tv_sec
        gmtime_r(&seconds, &parts)
        func pad(_ value: Int32, _ width: Int) -> String {
            let s = String(value)
            return String(repeating: "0", count: max(0, width - s.count)) + s
        }
        return "\(pad(parts.tm_year + 1900, 4))-\(pad(parts.tm_mon + 1, 2))-\(pad(parts.tm_mday, 2))T"
            + "\(pad(parts.tm_hour, 2)):\(pad(parts.tm_min, 2)):\(pad(parts.tm_sec, 2))."
            + "\(pad(Int32(now.tv_nsec / 1_000_000), 3))Z"
    }
}
