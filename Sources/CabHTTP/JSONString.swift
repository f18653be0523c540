/// JSON string literals written by hand, escaped exactly as Foundation's `JSONEncoder` escapes them (quote,
/// backslash, `\n \r \t \b \f`, other control characters as `\u00XX`; slashes and non-ASCII left as they are), so
/// hand-written responses and log lines can be compared byte for byte with the encoder's.
public enum JSONString {
    /// Appends `value` with its quotes to `out`.
    /// - Complexity: O(n); one scan when nothing needs escaping.
    public static func append(_ value: String, to out: inout String) {
        out += "\""
        var plain = true
        for unit in value.utf8 where unit < 0x20 || unit == 0x22 || unit == 0x5C {
            plain = false
            break
        }
        if plain {
            out += value
        } else {
            for scalar in value.unicodeScalars {
                switch scalar {
                case "\"": out += "\\\""
                case "\\": out += "\\\\"
                case "\n": out += "\\n"
                case "\r": out += "\\r"
                case "\t": out += "\\t"
                case "\u{08}": out += "\\b"
                case "\u{0C}": out += "\\f"
                case _ where scalar.value < 0x20:
                    let hex = String(scalar.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                default: out.unicodeScalars.append(scalar)
                }
            }
        }
        out += "\""
    }
}
