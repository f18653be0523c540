/// Reads the send time a server puts into an event's JSON data, to measure delivery latency against the local
/// wall clock: a number (milliseconds since the epoch, or seconds when below 10^11) or an RFC 3339 string.
enum EventTimestamp {
    /// The time in milliseconds since the Unix epoch of the top-level-looking `"field": value` in `json`, nil when
    /// absent or unreadable. Scans the text instead of decoding the whole object, so counting thousands of events
    /// per second stays cheap.
    static func milliseconds(in json: String, field: String) -> Double? {
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
            return rfc3339Milliseconds(String(decoding: utf8[(i + 1)..<end], as: UTF8.self))
        }
        let end = utf8[i...].firstIndex { !(($0 >= 48 && $0 <= 57) || $0 == 46 || $0 == 45 || $0 == 101 || $0 == 43) }
        guard let number = Double(String(decoding: utf8[i..<(end ?? i)], as: UTF8.self)) else { return nil }
        return number < 1e11 ? number * 1000 : number
    }

    /// Milliseconds since the epoch of `2026-11-29T23:59:00.123Z` (any fraction, `Z` or `±HH:MM`), nil if malformed.
    static func rfc3339Milliseconds(_ text: String) -> Double? {
        let b = Array(text.utf8)
        func digits(_ at: Int, _ count: Int) -> Int? {
            guard at + count <= b.count else { return nil }
            var n = 0
            for k in at..<at + count {
                guard b[k] >= 48 && b[k] <= 57 else { return nil }
                n = n * 10 + Int(b[k] - 48)
            }
            return n
        }
        guard b.count >= 20, let year = digits(0, 4), let month = digits(5, 2), let day = digits(8, 2),
            let hour = digits(11, 2), let minute = digits(14, 2), let second = digits(17, 2),
            (1...12).contains(month), (1...31).contains(day)
        else { return nil }
        var i = 19
        var fraction = 0.0
        if i < b.count && b[i] == UInt8(ascii: ".") {
            var scale = 0.1
            i += 1
            while i < b.count, b[i] >= 48, b[i] <= 57 {
                fraction += Double(b[i] - 48) * scale
                scale /= 10
                i += 1
            }
        }
        var offsetSeconds = 0
        guard i < b.count else { return nil }
        if b[i] == UInt8(ascii: "Z") || b[i] == UInt8(ascii: "z") {
            i += 1
        } else if b[i] == UInt8(ascii: "+") || b[i] == UInt8(ascii: "-") {
            guard let oh = digits(i + 1, 2), let om = digits(i + 4, 2) else { return nil }
            offsetSeconds = (oh * 3600 + om * 60) * (b[i] == UInt8(ascii: "-") ? -1 : 1)
            i += 6
        } else {
            return nil
        }
        guard i == b.count else { return nil }
        let seconds = daysFromCivil(year: year, month: month, day: day) * 86_400 + hour * 3600 + minute * 60 + second
            - offsetSeconds
        return (Double(seconds) + fraction) * 1000
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's `days_from_civil`).
    static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
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
