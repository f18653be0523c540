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

    /// `coordinates` text (as `coordinates(of:)` writes it) with every number rounded to `decimals` places
    /// (0 ... 6; half away from zero), trailing zeros trimmed. Numbers with fewer places are copied as they are.
    /// - Complexity: O(bytes), one pass over the UTF-8 bytes without allocating per number.
    static func rounding(_ coordinates: String, decimals: Int) -> String {
        precondition((0...6).contains(decimals), "rounding to \(decimals) decimals")
        var step: UInt64 = 1
        for _ in decimals..<6 { step *= 10 }
        var source = coordinates
        return source.withUTF8 { text in
            String(unsafeUninitializedCapacity: text.count) { out in
                var written = 0
                var i = 0
                let zero = UInt8(ascii: "0")
                while i < text.count {
                    let byte = text[i]
                    guard byte == UInt8(ascii: "-") || (byte &- zero) < 10 else {
                        out[written] = byte
                        written += 1
                        i += 1
                        continue
                    }
                    // One number: -?digits(.digits)?, at most 6 decimals (the stored precision).
                    let start = i
                    let negative = byte == UInt8(ascii: "-")
                    if negative { i += 1 }
                    var whole: UInt64 = 0
                    while i < text.count, (text[i] &- zero) < 10 {
                        whole = whole &* 10 &+ UInt64(text[i] &- zero)
                        i += 1
                    }
                    var fraction: UInt64 = 0
                    var places = 0
                    if i < text.count, text[i] == UInt8(ascii: ".") {
                        i += 1
                        while i < text.count, (text[i] &- zero) < 10 {
                            if places < 6 {
                                fraction = fraction * 10 + UInt64(text[i] &- zero)
                                places += 1
                            }
                            i += 1
                        }
                    }
                    guard places > decimals else {
                        for j in start..<i {
                            out[written] = text[j]
                            written += 1
                        }
                        continue
                    }
                    for _ in places..<6 { fraction *= 10 }
                    let rounded = (whole * 1_000_000 + fraction + step / 2) / step * step
                    // Never longer than the number it replaces: fewer decimals, and a carry (9.99996 → 10)
                    // that adds a digit drops at least the point and one decimal.
                    written = writeMicro(negative: negative, magnitude: rounded, into: out, at: written)
                }
                return written
            }
        }
    }

    /// Writes a number given in millionths at `offset`, trailing zeros trimmed; returns the offset after it.
    private static func writeMicro(
        negative: Bool, magnitude: UInt64, into out: UnsafeMutableBufferPointer<UInt8>, at offset: Int
    ) -> Int {
        var at = offset
        if negative && magnitude != 0 {
            out[at] = UInt8(ascii: "-")
            at += 1
        }
        // Whole part, most significant digit first.
        var whole = magnitude / 1_000_000
        var digits: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) = (
            0, 0, 0, 0, 0, 0, 0, 0, 0, 0
        )
        var count = 0
        withUnsafeMutableBytes(of: &digits) { buffer in
            repeat {
                buffer[count] = UInt8(ascii: "0") + UInt8(whole % 10)
                whole /= 10
                count += 1
            } while whole > 0 && count < 10
            for k in stride(from: count - 1, through: 0, by: -1) {
                out[at] = buffer[k]
                at += 1
            }
        }
        var fraction = magnitude % 1_000_000
        guard fraction != 0 else { return at }
        var places = 6
        while fraction % 10 == 0 {
            fraction /= 10
            places -= 1
        }
        out[at] = UInt8(ascii: ".")
        at += 1
        var divisor: UInt64 = 1
        for _ in 1..<places { divisor *= 10 }
        while divisor > 0 {
            out[at] = UInt8(ascii: "0") + UInt8(fraction / divisor % 10)
            at += 1
            divisor /= 10
        }
        return at
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
