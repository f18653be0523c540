/// JSON string literals written by hand, escaped exactly as Foundation's `JSONEncoder` escapes them (quote,
/// backslash, `\n \r \t \b \f`, other control characters as `\u00XX`; slashes and non-ASCII left as they are), so
/// hand-written responses and log lines can be compared byte for byte with the encoder's.
public enum JSONString {
    /// Appends `value` with its quotes to `out` (escaped through the byte form when it must be).
    /// - Complexity: O(n); one scan when nothing needs escaping.
    public static func append(_ value: String, to out: inout String) {
        guard needsEscaping(value) else {
            out += "\""
            out += value
            out += "\""
            return
        }
        var bytes: [UInt8] = []
        append(value, to: &bytes)
        out += String(decoding: bytes, as: UTF8.self)
    }

    private static func needsEscaping(_ value: String) -> Bool {
        value.utf8.contains { $0 < 0x20 || $0 == 0x22 || $0 == 0x5C }
    }

    /// Appends `value` with its quotes to `out` as UTF-8; the one place the escapes are written (only ASCII bytes
    /// are ever escaped, so the bytes of other characters pass through unchanged).
    public static func append(_ value: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        if !needsEscaping(value) {
            out.append(contentsOf: value.utf8)
        } else {
            for unit in value.utf8 {
                switch unit {
                case 0x22: out.append(contentsOf: #"\""#.utf8)
                case 0x5C: out.append(contentsOf: #"\\"#.utf8)
                case 0x0A: out.append(contentsOf: #"\n"#.utf8)
                case 0x0D: out.append(contentsOf: #"\r"#.utf8)
                case 0x09: out.append(contentsOf: #"\t"#.utf8)
                case 0x08: out.append(contentsOf: #"\b"#.utf8)
                case 0x0C: out.append(contentsOf: #"\f"#.utf8)
                case 0..<0x20:
                    let hex = String(unit, radix: 16)
                    out.append(contentsOf: ("\\u" + String(repeating: "0", count: 4 - hex.count) + hex).utf8)
                default: out.append(unit)
                }
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}
