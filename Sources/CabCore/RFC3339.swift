/// RFC 3339 timestamps (`2026-11-29T23:50:36.123Z`, `2026-11-30T01:50:36+02:00`), pure arithmetic on the
/// proleptic Gregorian calendar, no Foundation.
public enum RFC3339 {
    /// Formats in UTC with exactly three fractional digits: `YYYY-MM-DDTHH:MM:SS.mmmZ`.
    /// Years outside 0...9999 are clamped to the nearest representable instant.
    public static func format(_ instant: Instant) -> String {
        let minimumMilliseconds: Int64 = -62_167_219_200_000  // 0000-01-01T00:00:00Z
        let maximumMilliseconds: Int64 = 253_402_300_799_999  // 9999-12-31T23:59:59.999Z
        let ms = min(max(instant.millisecondsSinceEpoch, minimumMilliseconds), maximumMilliseconds)
        let (days, msOfDay) = floorDivide(ms, 86_400_000)
        let (y, m, d) = civil(fromDays: days)
        let h = msOfDay / 3_600_000
        let mi = msOfDay / 60_000 % 60
        let s = msOfDay / 1000 % 60
        let f = msOfDay % 1000
        return "\(pad(y, 4))-\(pad(m, 2))-\(pad(d, 2))T\(pad(h, 2)):\(pad(mi, 2)):\(pad(s, 2)).\(pad(f, 3))Z"
    }

    /// Parses `YYYY-MM-DD(T|t| )HH:MM:SS[.fraction](Z|z|±HH:MM)`; fractions beyond milliseconds are truncated.
    /// Returns nil for anything else, including impossible dates (Feb 30) and leap seconds.
    public static func parse(_ text: some StringProtocol) -> Instant? {
        let c = Array(text.utf8)
        var i = 0
        func number(_ width: Int) -> Int64? {
            guard i + width <= c.count else { return nil }
            var v: Int64 = 0
            for k in i..<(i + width) {
                guard c[k] >= 48 && c[k] <= 57 else { return nil }
                v = v * 10 + Int64(c[k] - 48)
            }
            i += width
            return v
        }
        func expect(_ chars: String) -> Bool {
            guard i < c.count, chars.utf8.contains(c[i]) else { return false }
            i += 1
            return true
        }
        guard let y = number(4), expect("-"), let mo = number(2), expect("-"), let d = number(2),
            expect("Tt "), let h = number(2), expect(":"), let mi = number(2), expect(":"), let s = number(2)
        else { return nil }
        guard (1...12).contains(mo), d >= 1, d <= daysInMonth(year: y, month: mo), h < 24, mi < 60, s < 60
        else { return nil }
        var ms: Int64 = 0
        if i < c.count, c[i] == UInt8(ascii: ".") {
            i += 1
            var digits = 0
            while i < c.count, c[i] >= 48, c[i] <= 57 {
                if digits < 3 { ms = ms * 10 + Int64(c[i] - 48) }
                digits += 1
                i += 1
            }
            guard digits > 0 else { return nil }
            if digits < 3 { for _ in digits..<3 { ms *= 10 } }
        }
        var offsetMinutes: Int64 = 0
        if expect("Zz") {
            offsetMinutes = 0
        } else if i < c.count, c[i] == UInt8(ascii: "+") || c[i] == UInt8(ascii: "-") {
            let sign: Int64 = c[i] == UInt8(ascii: "-") ? -1 : 1
            i += 1
            guard let oh = number(2), expect(":"), let om = number(2), oh < 24, om < 60 else { return nil }
            offsetMinutes = sign * (oh * 60 + om)
        } else {
            return nil
        }
        guard i == c.count else { return nil }
        let days = daysFromCivil(year: y, month: mo, day: d)
        let total = ((days * 24 + h) * 60 + mi - offsetMinutes) * 60 + s
        return Instant(millisecondsSinceEpoch: total * 1000 + ms)
    }

    /// Days since 1970-01-01 of a civil date (Howard Hinnant's `days_from_civil`).
    static func daysFromCivil(year: Int64, month: Int64, day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    /// The civil date of a day count since 1970-01-01 (Howard Hinnant's `civil_from_days`).
    static func civil(fromDays z0: Int64) -> (Int64, Int64, Int64) {
        let z = z0 + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (m <= 2 ? 1 : 0), m, d)
    }

    static func daysInMonth(year: Int64, month: Int64) -> Int64 {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    static func floorDivide(_ a: Int64, _ b: Int64) -> (Int64, Int64) {
        let q = a / b
        let r = a % b
        return r < 0 ? (q - 1, r + b) : (q, r)
    }

    static func pad(_ value: Int64, _ width: Int) -> String {
        let s = String(value)
        return s.count >= width ? s : String(repeating: "0", count: width - s.count) + s
    }
}
