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
        out.reserveCapacity(256)
        for (index, (key, value)) in fields.enumerated() {
            if index > 0 { out += "," }
            JSONString.append(key, to: &out)
            out += ":"
            switch value {
            case .string(let s): JSONString.append(s, to: &out)
            case .int(let i): out += String(i)
            case .double(let d): appendMilli(d, to: &out)
            case .bool(let b): out += b ? "true" : "false"
            }
        }
        return out + "}"
    }

    /// `d` rounded to three decimals, written as Swift prints that `Double` (`12.5`, `0.042`, `3.0` → `3.0`),
    /// without going through `Double.description` for the common range; `null` when not finite.
    static func appendMilli(_ d: Double, to out: inout String) {
        guard d.isFinite else {
            out += "null"
            return
        }
        let rounded = (d * 1000).rounded() / 1000
        guard abs(rounded) < 1e9, abs(rounded) >= 0.001 || rounded == 0 else {
            out += String(rounded)
            return
        }
        let thousandths = Int64((abs(rounded) * 1000).rounded())
        if rounded < 0 { out += "-" }
        out += String(thousandths / 1000)
        var fraction = thousandths % 1000
        var digits = 3
        if fraction == 0 {
            out += ".0"
            return
        }
        while fraction % 10 == 0 {
            fraction /= 10
            digits -= 1
        }
        let text = String(fraction)
        out += "." + String(repeating: "0", count: digits - text.count) + text
    }

    /// The current UTC time as RFC 3339 with milliseconds ("2025-01-31T12:00:00.123Z"), written digit by digit
    /// into one buffer (it is taken for every request).
    static func timestamp() -> String {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        var parts = tm()
        var seconds = now.tv_sec
        gmtime_r(&seconds, &parts)
        let fields: [(Int, Int)] = [
            (Int(parts.tm_year) + 1900, 4), (Int(parts.tm_mon) + 1, 2), (Int(parts.tm_mday), 2),
            (Int(parts.tm_hour), 2),
            (Int(parts.tm_min), 2), (Int(parts.tm_sec), 2), (Int(now.tv_nsec / 1_000_000), 3),
        ]
        let separators: [UInt8] = Array("--T::.Z".utf8)
        return String(unsafeUninitializedCapacity: 24) { buffer in
            var position = 0
            for (index, (value, width)) in fields.enumerated() {
                var rest = max(0, value)
                for k in stride(from: width - 1, through: 0, by: -1) {
                    buffer[position + k] = UInt8(ascii: "0") + UInt8(rest % 10)
                    rest /= 10
                }
                position += width
                buffer[position] = separators[index]
                position += 1
            }
            return position
        }
    }
}
