/// Google's encoded polyline format (precision 5 by default, 6 as OSRM's `polyline6`).
public enum Polyline {
    /// Encodes `points`.
    /// - Complexity: O(n).
    public static func encode(_ points: [Coordinate], precision: Int = 5) -> String {
        let factor = power10(precision)
        var out: [UInt8] = []
        out.reserveCapacity(points.count * 8)
        var lastLat = 0
        var lastLon = 0
        for p in points {
            let lat = Int((p.latitude * factor).rounded())
            let lon = Int((p.longitude * factor).rounded())
            append(lat - lastLat, to: &out)
            append(lon - lastLon, to: &out)
            lastLat = lat
            lastLon = lon
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Decodes `text`; nil when it is not a valid polyline.
    /// - Complexity: O(n).
    public static func decode(_ text: String, precision: Int = 5) -> [Coordinate]? {
        let factor = power10(precision)
        return decodeScaled(text)?.map {
            Coordinate(latitude: Double($0.latitude) / factor, longitude: Double($0.longitude) / factor)
        }
    }

    /// The points as the encoded integers (degrees × 10^precision), without converting to `Double`; nil when the
    /// text is not a polyline.
    public static func decodeScaled(_ text: String) -> [(latitude: Int, longitude: Int)]? {
        var result: [(latitude: Int, longitude: Int)] = []
        var bytes = Array(text.utf8)[...]
        var lat = 0
        var lon = 0
        while !bytes.isEmpty {
            guard let dLat = next(&bytes), let dLon = next(&bytes) else { return nil }
            lat += dLat
            lon += dLon
            result.append((lat, lon))
        }
        return result
    }

    private static func power10(_ n: Int) -> Double {
        var f = 1.0
        for _ in 0..<n { f *= 10 }
        return f
    }

    private static func append(_ value: Int, to out: inout [UInt8]) {
        var v = value < 0 ? ~(value << 1) : value << 1
        while v >= 0x20 {
            out.append(UInt8((0x20 | (v & 0x1f)) + 63))
            v >>= 5
        }
        out.append(UInt8(v + 63))
    }

    private static func next(_ bytes: inout ArraySlice<UInt8>) -> Int? {
        var result = 0
        var shift = 0
        while let b = bytes.popFirst() {
            guard b >= 63 else { return nil }
            let chunk = Int(b) - 63
            result |= (chunk & 0x1f) << shift
            shift += 5
            if chunk < 0x20 { return (result & 1) != 0 ? ~(result >> 1) : result >> 1 }
            if shift > 60 { return nil }
        }
        return nil
    }
}
