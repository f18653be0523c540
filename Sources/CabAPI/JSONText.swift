import CabCore
import CabGeo
import CabHTTP

/// JSON written by hand, byte for byte as `JSONCoding.encoder` writes it (sorted keys, unescaped slashes), for
/// the responses whose `JSONEncoder` cost showed in profiles (routes and bookings carry whole route geometries).
/// Callers write keys in sorted order themselves; tests compare the bytes with `JSONEncoder`'s.
struct JSONText {
    private(set) var text = ""

    /// An empty document with room for `capacity` bytes.
    init(capacity: Int = 256) { text.reserveCapacity(capacity) }

    /// The UTF-8 bytes written so far.
    var bytes: [UInt8] { Array(text.utf8) }

    /// Raw JSON punctuation or an already valid fragment.
    mutating func raw(_ fragment: String) { text += fragment }

    /// `"key":`, with a comma first unless `first`.
    mutating func key(_ name: String, first: Bool = false) {
        if !first { text += "," }
        text += "\""
        text += name
        text += "\":"
    }

    /// A JSON string, escaped as `JSONEncoder` escapes it (quote, backslash, control characters).
    mutating func string(_ value: String) { JSONString.append(value, to: &text) }

    /// A string or `null`.
    mutating func string(_ value: String?) {
        if let value { string(value) } else { text += "null" }
    }

    /// An integer.
    mutating func integer(_ value: some BinaryInteger) { text += String(value) }

    /// An integer or `null`.
    mutating func integer(_ value: Int?) {
        if let value { integer(value) } else { text += "null" }
    }

    /// A finite number in `JSONEncoder`'s form: integral values without a fraction, others in Swift's shortest
    /// round-tripping form.
    mutating func number(_ x: Double) { text += Self.number(x) }

    /// `number(_:)` as a string.
    static func number(_ x: Double) -> String {
        precondition(x.isFinite, "JSON numbers are finite")
        if x == x.rounded(), abs(x) < 1e15 { return String(Int64(x)) }
        return x.description
    }

    /// `{"lat":…,"lon":…}`.
    mutating func coordinate(_ c: Coordinate) {
        text += "{\"lat\":"
        number(c.latitude)
        text += ",\"lon\":"
        number(c.longitude)
        text += "}"
    }

    /// An instant as its RFC 3339 string (`Instant`'s `Encodable` form), or `null`.
    mutating func instant(_ t: Instant?) {
        if let t { string(RFC3339.format(t)) } else { text += "null" }
    }

    /// A GeoJSON line string: `{"coordinates":[[lon,lat],…],"type":"LineString"}`.
    mutating func lineString(_ line: GeoJSONLineString) {
        text += "{\"coordinates\":["
        for (i, position) in line.coordinates.enumerated() {
            if i > 0 { text += "," }
            text += "["
            for (j, x) in position.enumerated() {
                if j > 0 { text += "," }
                number(x)
            }
            text += "]"
        }
        text += "],\"type\":"
        string(line.type)
        text += "}"
    }
}
