import CabGeo

/// Writes GeoJSON text by hand: the base map stores each geometry's `coordinates` member ready to send, so a
/// query only concatenates.
enum GeoJSONText {
    /// The `coordinates` member of `geometry` (`[[lon,lat],...]` nested as its type requires), 6 decimals
    /// (about 0.1 m).
    static func coordinates(of geometry: BaseMapGeometry) -> String {
        var out: [UInt8] = []
        switch geometry {
        case .lineString(let line):
            appendLine(line, to: &out)
        case .multiLineString(let lines), .polygon(let lines):
            appendList(lines, to: &out) { appendLine($0, to: &$1) }
        case .multiPolygon(let polygons):
            appendList(polygons, to: &out) { rings, out in
                appendList(rings, to: &out) { appendLine($0, to: &$1) }
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// `text` as a JSON string literal, quotes included.
    static func quoted(_ text: String) -> String {
        var out: [UInt8] = [UInt8(ascii: "\"")]
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): out += [UInt8(ascii: "\\"), UInt8(ascii: "\"")]
            case UInt8(ascii: "\\"): out += [UInt8(ascii: "\\"), UInt8(ascii: "\\")]
            case 0x0A: out += [UInt8(ascii: "\\"), UInt8(ascii: "n")]
            case 0x0D: out += [UInt8(ascii: "\\"), UInt8(ascii: "r")]
            case 0x09: out += [UInt8(ascii: "\\"), UInt8(ascii: "t")]
            case 0..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                out += Array("\\u00".utf8) + [hex[Int(byte >> 4)], hex[Int(byte & 0xF)]]
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
        return String(decoding: out, as: UTF8.self)
    }

    private static func appendList<T>(_ items: [T], to out: inout [UInt8], _ element: (T, inout [UInt8]) -> Void) {
        out.append(UInt8(ascii: "["))
        for (i, item) in items.enumerated() {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            element(item, &out)
        }
        out.append(UInt8(ascii: "]"))
    }

    private static func appendLine(_ line: [Coordinate], to out: inout [UInt8]) {
        appendList(line, to: &out) { point, out in
            out.append(UInt8(ascii: "["))
            appendFixed6(point.longitude, to: &out)
            out.append(UInt8(ascii: ","))
            appendFixed6(point.latitude, to: &out)
            out.append(UInt8(ascii: "]"))
        }
    }

    /// Appends `value` with six decimals, trailing zeros trimmed ("24.93", "-0.5", "60").
    static func appendFixed6(_ value: Double, to out: inout [UInt8]) {
        let micro = Int64((value * 1_000_000).rounded())
        appendMicro(negative: micro < 0, magnitude: micro.magnitude, to: &out)
    }

    /// Appends a number given in millionths, trailing zeros trimmed.
    private static func appendMicro(negative: Bool, magnitude: UInt64, to out: inout [UInt8]) {
        if negative && magnitude != 0 { out.append(UInt8(ascii: "-")) }
        out += Array(String(magnitude / 1_000_000).utf8)
        var fraction = magnitude % 1_000_000
        guard fraction != 0 else { return }
        var digits = 6
        while fraction % 10 == 0 {
            fraction /= 10
            digits -= 1
        }
        out.append(UInt8(ascii: "."))
        let text = Array(String(fraction).utf8)
        out += [UInt8](repeating: UInt8(ascii: "0"), count: digits - text.count) + text
    }
}
