import CabCore
import CabLoopback

/// Reads the send time a server puts into an event's JSON data, to measure delivery latency against the local
/// wall clock: a number (milliseconds since the epoch, or seconds when below 10^11) or an RFC 3339 string.
package enum EventTimestamp {
    /// The time in milliseconds since the Unix epoch of the top-level-looking `"field": value` in `json`, nil when
    /// absent or unreadable. Scans the text instead of decoding the whole object, so counting thousands of events
    /// per second stays cheap.
    package static func milliseconds(in json: String, field: String) -> Double? {
        var utf8 = Array(json.utf8)
        utf8.append(0)
        let key = Array("\"\(field)\"".utf8)
        guard let keyEnd = firstIndex(of: key, in: utf8) else { return nil }
        var i = keyEnd
        while utf8[i] == UInt8(ascii: " ") { i += 1 }
        guard utf8[i] == UInt8(ascii: ":") else { return nil }
        i += 1
        while utf8[i] == UInt8(ascii: " ") { i += 1 }
        if utf8[i] == UInt8(ascii: "\"") {
            let end = utf8[(i + 1)...].firstIndex(of: UInt8(ascii: "\"")) ?? i
            return RFC3339.parse(String(decoding: utf8[(i + 1)..<end], as: UTF8.self)).map {
                Double($0.millisecondsSinceEpoch)
            }
        }
        let end = utf8[i...].firstIndex { !(($0 >= 48 && $0 <= 57) || $0 == 46 || $0 == 45 || $0 == 101 || $0 == 43) }
        guard let number = Double(String(decoding: utf8[i..<(end ?? i)], as: UTF8.self)) else { return nil }
        return number < 1e11 ? number * 1000 : number
    }

    private static func firstIndex(of needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        var i = 0
        while i + needle.count <= haystack.count {
            if haystack[i] == needle[0] && Array(haystack[i..<i + needle.count]) == needle { return i + needle.count }
            i += 1
        }
        return nil
    }
}
