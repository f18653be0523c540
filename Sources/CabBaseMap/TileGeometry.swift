import CabGeo

/// A feature's geometry as a tile holds it: read back from the stored `coordinates` text, clipped to the tile's box
/// (plus a margin), measured for ordering, and written again with the tile's decimals.
///
/// Every geometry is kept as parts of rings or lines: a LineString is one part with one line, a MultiLineString one
/// part with several lines, a Polygon one part whose first line is the outer ring, a MultiPolygon several parts.
struct TileGeometry: Equatable {
    /// The GeoJSON type as stored.
    enum Shape: Equatable {
        case lineString, multiLineString, polygon, multiPolygon

        init?(geoJSONType: String) {
            switch geoJSONType {
            case "LineString": self = .lineString
            case "MultiLineString": self = .multiLineString
            case "Polygon": self = .polygon
            case "MultiPolygon": self = .multiPolygon
            default: return nil
            }
        }

        var isArea: Bool { self == .polygon || self == .multiPolygon }
    }

    /// A point in degrees (x: longitude, y: latitude).
    struct Point: Equatable {
        var x: Double
        var y: Double
    }

    var shape: Shape
    /// Polygons (rings, outer first) or, for lines, one part holding every line.
    var parts: [[[Point]]]

    /// True when clipping left nothing.
    var isEmpty: Bool { parts.allSatisfy { $0.isEmpty } }

    /// The GeoJSON `type` of the geometry as written: a line cut into several pieces becomes a MultiLineString.
    var geoJSONType: String {
        switch shape {
        case .lineString: (parts.first?.count ?? 0) > 1 ? "MultiLineString" : "LineString"
        case .multiLineString: "MultiLineString"
        case .polygon: "Polygon"
        case .multiPolygon: "MultiPolygon"
        }
    }

    /// Reads `coordinates` text of `shape` (as `GeoJSONText.coordinates(of:)` writes it); nil when it is not.
    /// - Complexity: O(bytes).
    init?(shape: Shape, coordinates text: String) {
        self.shape = shape
        let reader = NumberListReader()
        var copy = text
        let parsed: [[[Point]]]? = copy.withUTF8 { bytes in
            var i = 0
            switch shape {
            case .lineString:
                return reader.line(bytes, &i).map { [[$0]] }
            case .multiLineString, .polygon:
                return reader.list(bytes, &i) { reader.line($0, &$1) }.map { [$0] }
            case .multiPolygon:
                return reader.list(bytes, &i) { bytes, i in reader.list(bytes, &i) { reader.line($0, &$1) } }
            }
        }
        guard let parsed else { return nil }
        parts = parsed
    }

    init(shape: Shape, parts: [[[Point]]]) {
        self.shape = shape
        self.parts = parts
    }

    // MARK: Clipping

    /// The geometry inside `box` (west, south, east, north in degrees): lines cut into the pieces inside, polygons
    /// clipped as polygons (Sutherland-Hodgman on every ring; a polygon whose outer ring vanishes goes, a hole that
    /// vanishes goes). The result may be empty.
    /// - Complexity: O(points).
    func clipped(to box: Box) -> TileGeometry {
        if box.contains(parts) { return self }
        switch shape {
        case .lineString, .multiLineString:
            let lines = (parts.first ?? []).flatMap { Self.clip(line: $0, to: box) }
            return TileGeometry(shape: shape, parts: lines.isEmpty ? [] : [lines])
        case .polygon, .multiPolygon:
            var polygons: [[[Point]]] = []
            for rings in parts {
                guard let outer = rings.first.flatMap({ Self.clip(ring: $0, to: box) }) else { continue }
                polygons.append([outer] + rings.dropFirst().compactMap { Self.clip(ring: $0, to: box) })
            }
            return TileGeometry(shape: shape, parts: polygons)
        }
    }

    /// A box in degrees.
    struct Box: Equatable {
        var west: Double
        var south: Double
        var east: Double
        var north: Double

        func contains(_ p: Point) -> Bool { p.x >= west && p.x <= east && p.y >= south && p.y <= north }

        func contains(_ parts: [[[Point]]]) -> Bool {
            parts.allSatisfy { $0.allSatisfy { $0.allSatisfy(contains) } }
        }
    }

    /// The pieces of `line` inside `box` (Liang-Barsky on each segment; consecutive inside segments join).
    static func clip(line: [Point], to box: Box) -> [[Point]] {
        guard line.count >= 2 else { return [] }
        var pieces: [[Point]] = []
        var current: [Point] = []
        for k in 1..<line.count {
            let a = line[k - 1]
            let b = line[k]
            guard let inside = clip(segment: a, b, to: box) else {
                if current.count >= 2 { pieces.append(current) }
                current = []
                continue
            }
            if current.last != inside.from {
                if current.count >= 2 { pieces.append(current) }
                current = [inside.from]
            }
            current.append(inside.to)
            if inside.to != b {
                pieces.append(current)
                current = []
            }
        }
        if current.count >= 2 { pieces.append(current) }
        return pieces
    }

    /// The part of segment a-b inside `box`, nil when none (Liang-Barsky). An end inside is returned exactly.
    static func clip(segment a: Point, _ b: Point, to box: Box) -> (from: Point, to: Point)? {
        let dx = b.x - a.x
        let dy = b.y - a.y
        var t0 = 0.0
        var t1 = 1.0
        // One edge: p is the direction against its normal, q the distance inside it; false when all is outside.
        func edge(_ p: Double, _ q: Double) -> Bool {
            if p == 0 { return q >= 0 }
            let r = q / p
            if p < 0 {
                if r > t1 { return false }
                if r > t0 { t0 = r }
            } else {
                if r < t0 { return false }
                if r < t1 { t1 = r }
            }
            return true
        }
        guard edge(-dx, a.x - box.west), edge(dx, box.east - a.x), edge(-dy, a.y - box.south),
            edge(dy, box.north - a.y)
        else { return nil }
        let from = t0 == 0 ? a : Point(x: a.x + t0 * dx, y: a.y + t0 * dy)
        let to = t1 == 1 ? b : Point(x: a.x + t1 * dx, y: a.y + t1 * dy)
        return (from, to)
    }

    /// `ring` (closed: first point repeated last) clipped to `box` (Sutherland-Hodgman against its four edges),
    /// closed again; nil when fewer than three points are left.
    static func clip(ring: [Point], to box: Box) -> [Point]? {
        var points = Array(ring.dropLast(ring.count > 1 && ring.first == ring.last ? 1 : 0))
        typealias Edge = (inside: (Point) -> Bool, cross: (Point, Point) -> Point)
        func crossX(_ x: Double) -> (Point, Point) -> Point {
            { a, b in Point(x: x, y: a.y + (b.y - a.y) * (x - a.x) / (b.x - a.x)) }
        }
        func crossY(_ y: Double) -> (Point, Point) -> Point {
            { a, b in Point(x: a.x + (b.x - a.x) * (y - a.y) / (b.y - a.y), y: y) }
        }
        let edges: [Edge] = [
            ({ $0.x >= box.west }, crossX(box.west)), ({ $0.x <= box.east }, crossX(box.east)),
            ({ $0.y >= box.south }, crossY(box.south)), ({ $0.y <= box.north }, crossY(box.north)),
        ]
        for edge in edges {
            guard let last = points.last else { return nil }
            var output: [Point] = []
            output.reserveCapacity(points.count + 4)
            var previous = last
            var previousInside = edge.inside(previous)
            for point in points {
                let inside = edge.inside(point)
                if inside {
                    if !previousInside { output.append(edge.cross(previous, point)) }
                    output.append(point)
                } else if previousInside {
                    output.append(edge.cross(previous, point))
                }
                previous = point
                previousInside = inside
            }
            points = output
        }
        guard points.count >= 3 else { return nil }
        points.append(points[0])
        return points
    }

    // MARK: Size

    /// How much of the tile the geometry covers, for ordering within a rank, in the tile's pixels: a line's length
    /// (as if one pixel wide) or a polygon's area (outer rings less holes). `scale` is pixels per degree of
    /// longitude (x) and of latitude (y) at the tile.
    func pixels(scale: Point) -> Double {
        switch shape {
        case .lineString, .multiLineString:
            var length = 0.0
            for line in parts.first ?? [] where line.count >= 2 {
                for k in 1..<line.count {
                    let dx = (line[k].x - line[k - 1].x) * scale.x
                    let dy = (line[k].y - line[k - 1].y) * scale.y
                    length += (dx * dx + dy * dy).squareRoot()
                }
            }
            return length
        case .polygon, .multiPolygon:
            var area = 0.0
            for rings in parts {
                for (r, ring) in rings.enumerated() {
                    let ringArea = abs(Self.signedArea(ring)) * scale.x * scale.y
                    area += r == 0 ? ringArea : -ringArea
                }
            }
            return max(area, 0)
        }
    }

    /// The signed area of a closed ring in square degrees (the shoelace formula).
    static func signedArea(_ ring: [Point]) -> Double {
        guard ring.count >= 3 else { return 0 }
        var sum = 0.0
        for k in 1..<ring.count {
            sum += ring[k - 1].x * ring[k].y - ring[k].x * ring[k - 1].y
        }
        return sum / 2
    }

    // MARK: Writing

    /// The `coordinates` member with `decimals` places (0 ... 6, trailing zeros trimmed), appended to `out`.
    func appendCoordinates(decimals: Int, to out: inout [UInt8]) {
        precondition((0...6).contains(decimals), "writing \(decimals) decimals")
        var scale = 1.0
        for _ in 0..<decimals { scale *= 10 }
        func line(_ points: [Point]) {
            out.append(UInt8(ascii: "["))
            for (i, point) in points.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                out.append(UInt8(ascii: "["))
                Self.appendFixed(Int64((point.x * scale).rounded()), decimals: decimals, to: &out)
                out.append(UInt8(ascii: ","))
                Self.appendFixed(Int64((point.y * scale).rounded()), decimals: decimals, to: &out)
                out.append(UInt8(ascii: "]"))
            }
            out.append(UInt8(ascii: "]"))
        }
        func lines(_ list: [[Point]]) {
            out.append(UInt8(ascii: "["))
            for (i, points) in list.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                line(points)
            }
            out.append(UInt8(ascii: "]"))
        }
        switch shape {
        case .lineString, .multiLineString:
            let list = parts.first ?? []
            if shape == .lineString && list.count == 1 { line(list[0]) } else { lines(list) }
        case .polygon:
            lines(parts.first ?? [])
        case .multiPolygon:
            out.append(UInt8(ascii: "["))
            for (i, rings) in parts.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                lines(rings)
            }
            out.append(UInt8(ascii: "]"))
        }
    }

    /// Appends `units` / 10^`decimals` in decimal, trailing zeros trimmed, no sign for zero ("24.93", "-0.5", "60").
    static func appendFixed(_ units: Int64, decimals: Int, to out: inout [UInt8]) {
        let magnitude = units.magnitude
        if units < 0 { out.append(UInt8(ascii: "-")) }
        var divisor: UInt64 = 1
        for _ in 0..<decimals { divisor *= 10 }
        let whole = magnitude / divisor
        var fraction = magnitude % divisor
        var digit: UInt64 = 1
        while digit <= whole / 10 { digit *= 10 }
        while digit > 0 {
            out.append(UInt8(ascii: "0") + UInt8(whole / digit % 10))
            digit /= 10
        }
        guard fraction != 0 else { return }
        var places = decimals
        while fraction % 10 == 0 {
            fraction /= 10
            places -= 1
        }
        out.append(UInt8(ascii: "."))
        digit = 1
        for _ in 1..<places { digit *= 10 }
        while digit > 0 {
            out.append(UInt8(ascii: "0") + UInt8(fraction / digit % 10))
            digit /= 10
        }
    }
}

/// Reads the nested number lists of stored `coordinates` text: `[` items `,` ... `]`, a position being
/// `[lon,lat]` written with at most six decimals.
private struct NumberListReader {
    typealias Point = TileGeometry.Point

    /// `[item,item,...]`, each item read by `item`.
    func list<T>(
        _ bytes: UnsafeBufferPointer<UInt8>, _ i: inout Int, _ item: (UnsafeBufferPointer<UInt8>, inout Int) -> T?
    ) -> [T]? {
        guard i < bytes.count, bytes[i] == UInt8(ascii: "[") else { return nil }
        i += 1
        var items: [T] = []
        if i < bytes.count, bytes[i] == UInt8(ascii: "]") {
            i += 1
            return items
        }
        while true {
            guard let value = item(bytes, &i) else { return nil }
            items.append(value)
            guard i < bytes.count else { return nil }
            if bytes[i] == UInt8(ascii: ",") {
                i += 1
            } else if bytes[i] == UInt8(ascii: "]") {
                i += 1
                return items
            } else {
                return nil
            }
        }
    }

    /// `[[lon,lat],...]`.
    func line(_ bytes: UnsafeBufferPointer<UInt8>, _ i: inout Int) -> [Point]? {
        list(bytes, &i) { bytes, i in
            guard i < bytes.count, bytes[i] == UInt8(ascii: "[") else { return nil }
            i += 1
            guard let x = number(bytes, &i), i < bytes.count, bytes[i] == UInt8(ascii: ",") else { return nil }
            i += 1
            guard let y = number(bytes, &i), i < bytes.count, bytes[i] == UInt8(ascii: "]") else { return nil }
            i += 1
            return Point(x: x, y: y)
        }
    }

    /// `-?digits(.digits)?`, exact to the sixth decimal.
    func number(_ bytes: UnsafeBufferPointer<UInt8>, _ i: inout Int) -> Double? {
        let zero = UInt8(ascii: "0")
        var negative = false
        if i < bytes.count, bytes[i] == UInt8(ascii: "-") {
            negative = true
            i += 1
        }
        let start = i
        var whole: Int64 = 0
        while i < bytes.count, (bytes[i] &- zero) < 10 {
            whole = whole &* 10 &+ Int64(bytes[i] &- zero)
            i += 1
        }
        guard i > start else { return nil }
        var fraction: Int64 = 0
        var places = 0
        if i < bytes.count, bytes[i] == UInt8(ascii: ".") {
            i += 1
            while i < bytes.count, (bytes[i] &- zero) < 10 {
                if places < 6 {
                    fraction = fraction * 10 + Int64(bytes[i] &- zero)
                    places += 1
                }
                i += 1
            }
        }
        for _ in places..<6 { fraction *= 10 }
        let micro = whole * 1_000_000 + fraction
        return Double(negative ? -micro : micro) / 1_000_000
    }
}
