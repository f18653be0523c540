import CabCore
import CabGeo
import CabHTTP

/// JSON written by hand, byte for byte as `JSONCoding.encoder` writes it (sorted keys, unescaped slashes), for
/// the responses whose `JSONEncoder` cost showed in profiles (routes and bookings carry whole route geometries).
/// Callers write keys in sorted order themselves; tests compare the bytes with `JSONEncoder`'s.
/// Bytes are appended to a `[UInt8]` (appending to a `String` piece by piece cost twice as much).
struct JSONText {
    /// The UTF-8 bytes written so far.
    private(set) var bytes: [UInt8] = []

    /// An empty document with room for `capacity` bytes.
    init(capacity: Int = 256) { bytes.reserveCapacity(capacity) }

    /// The document so far as text.
    var text: String { String(decoding: bytes, as: UTF8.self) }

    /// Raw JSON punctuation or an already valid fragment.
    mutating func raw(_ fragment: String) { bytes.append(contentsOf: fragment.utf8) }

    /// `"key":`, with a comma first unless `first`.
    mutating func key(_ name: String, first: Bool = false) {
        if !first { bytes.append(UInt8(ascii: ",")) }
        bytes.append(UInt8(ascii: "\""))
        bytes.append(contentsOf: name.utf8)
        bytes.append(UInt8(ascii: "\""))
        bytes.append(UInt8(ascii: ":"))
    }

    /// A JSON string, escaped as `JSONEncoder` escapes it (quote, backslash, control characters).
    mutating func string(_ value: String) { JSONString.append(value, to: &bytes) }

    /// A string or `null`.
    mutating func string(_ value: String?) {
        if let value { string(value) } else { raw("null") }
    }

    /// An integer.
    mutating func integer(_ value: some BinaryInteger) { bytes.append(contentsOf: String(value).utf8) }

    /// An integer or `null`.
    mutating func integer(_ value: Int?) {
        if let value { integer(value) } else { raw("null") }
    }

    /// A finite number in `JSONEncoder`'s form: integral values without a fraction, others in Swift's shortest
    /// round-tripping form.
    mutating func number(_ x: Double) { bytes.append(contentsOf: Self.number(x).utf8) }

    /// `number(_:)` as a string.
    static func number(_ x: Double) -> String {
        precondition(x.isFinite, "JSON numbers are finite")
        if x == x.rounded(), abs(x) < 1e15 { return String(Int64(x)) }
        return x.description
    }

    /// `{"lat":…,"lon":…}`.
    mutating func coordinate(_ c: Coordinate) {
        raw("{\"lat\":")
        number(c.latitude)
        raw(",\"lon\":")
        number(c.longitude)
        raw("}")
    }

    /// An instant as its RFC 3339 string (`Instant`'s `Encodable` form), or `null`.
    mutating func instant(_ t: Instant?) {
        if let t { string(RFC3339.format(t)) } else { raw("null") }
    }

    /// `{"coordinates":[[lon,lat],…],"type":"LineString"}` straight from an encoded polyline (precision 5), the
    /// same bytes as `lineString(GeoJSONLineString(Polyline.decode(polyline)))` without a `Double` or an array per
    /// point: a decoded value is `n / 10^5` correctly rounded, whose shortest form is the decimal `n / 10^5`
    /// itself. False (nothing written) when the polyline does not decode.
    mutating func lineString(polyline: String) -> Bool {
        guard let points = Polyline.decodeScaled(polyline) else { return false }
        bytes.reserveCapacity(bytes.count + 40 + points.count * 24)
        bytes.append(contentsOf: #"{"coordinates":["#.utf8)
        for (i, point) in points.enumerated() {
            if i > 0 { bytes.append(UInt8(ascii: ",")) }
            bytes.append(UInt8(ascii: "["))
            Self.appendDecimal(point.longitude, scale: 5, to: &bytes)
            bytes.append(UInt8(ascii: ","))
            Self.appendDecimal(point.latitude, scale: 5, to: &bytes)
            bytes.append(UInt8(ascii: "]"))
        }
        bytes.append(contentsOf: #"],"type":"LineString"}"#.utf8)
        return true
    }

    /// `value / 10^scale` as `number(_:)` writes the `Double` of it: the shortest decimal form, no trailing zeros,
    /// no fraction for whole numbers (magnitudes under 10^-4, which Swift writes with an exponent, go through
    /// `number`).
    static func appendDecimal(_ value: Int, scale: Int, to out: inout [UInt8]) {
        var divisor: UInt = 1
        for _ in 0..<scale { divisor *= 10 }
        if value != 0, value.magnitude * 10_000 < divisor {
            out.append(contentsOf: number(Double(value) / Double(divisor)).utf8)
            return
        }
        if value < 0 { out.append(UInt8(ascii: "-")) }
        appendDigits(value.magnitude / divisor, minimumCount: 1, to: &out)
        var fraction = value.magnitude % divisor
        guard fraction > 0 else { return }
        var digits = scale
        while fraction % 10 == 0 {
            fraction /= 10
            digits -= 1
        }
        out.append(UInt8(ascii: "."))
        appendDigits(fraction, minimumCount: digits, to: &out)
    }

    /// The decimal digits of `value`, left-padded with zeros to `minimumCount`.
    private static func appendDigits(_ value: UInt, minimumCount: Int, to out: inout [UInt8]) {
        var scratch: (UInt64, UInt64, UInt64) = (0, 0, 0)  // 24 bytes: room for a UInt's 20 digits
        withUnsafeMutableBytes(of: &scratch) { buffer in
            var position = buffer.count
            var rest = value
            repeat {
                position -= 1
                buffer[position] = UInt8(ascii: "0") + UInt8(rest % 10)
                rest /= 10
            } while rest > 0 || buffer.count - position < minimumCount
            out.append(contentsOf: buffer[position...])
        }
    }

    /// A GeoJSON line string: `{"coordinates":[[lon,lat],…],"type":"LineString"}`.
    mutating func lineString(_ line: GeoJSONLineString) {
        raw("{\"coordinates\":[")
        for (i, position) in line.coordinates.enumerated() {
            if i > 0 { raw(",") }
            raw("[")
            for (j, x) in position.enumerated() {
                if j > 0 { raw(",") }
                number(x)
            }
            raw("]")
        }
        raw("],\"type\":")
        string(line.type)
        raw("}")
    }
}
