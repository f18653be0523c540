import CabGeo

/// One row of the index before it is written: a POI, an address, a street segment or an area.
struct PlaceRecord: Sendable {
    var kind: PlaceKind
    var source: PlaceSourceID
    /// The display name.
    var name: String
    /// Every name variant, the display name first.
    var names: [String]
    var category: PlaceCategory
    /// `addr:street` (or `addr:place`), when tagged.
    var street: String?
    /// `addr:housenumber`, when tagged.
    var housenumber: String?
    /// Where the pin goes.
    var coordinate: Coordinate
    var geometry: PlaceGeometry
    /// What its importance is computed from (`PlaceImportance`).
    var signals: PlaceImportance.Signals
    /// Whether reverse geocoding may answer with this record's shape.
    var reverseShape: Bool
    /// The shapes reverse geocoding measures (a merged street has one per segment).
    var shapes: [(role: PlaceSchema.Role, points: [Coordinate])]
    /// Its `name:xx` names, by language code, sorted by code.
    var localizedNames: [(language: String, name: String)] = []
    /// 0 ... 1, filled in by the builder from `signals`; orders candidates.
    var importance = 0.0
    /// The address line, filled in by the builder.
    var addressLine = ""
    /// The district and city it lies in ("Kluuvi, Helsinki"), filled in by the builder.
    var area = ""
    /// Where a cab should stop for a big venue (a taxi rank or platform mapped at it), filled in by the builder.
    var pickup: PlacePickupPoint?

    /// "Street 12" when the record carries both parts, the street alone when it has no number.
    var ownAddress: String? {
        guard let street else { return nil }
        guard let housenumber else { return street }
        return "\(street) \(housenumber)"
    }
}

extension PlaceGeometry {
    /// How reverse geocoding measures each part: rings of three or more vertices as polygons (a clipped ring is
    /// closed implicitly), open ways as lines, nodes as points.
    var shapes: [(role: PlaceSchema.Role, points: [Coordinate])] {
        switch self {
        case .point(let p): [(.point, [p])]
        case .line(let line): [(line.count == 1 ? .point : .line, line)]
        case .area(let parts): parts.filter { !$0.isEmpty }.map { ($0.count >= 3 ? .polygon : .line, $0) }
        }
    }

    /// A representative point: the node, the middle of a line by length, the centroid of the largest closed
    /// ring (the mean of the vertices when clipping left no closed ring).
    var representativePoint: Coordinate {
        switch self {
        case .point(let p): return p
        case .line(let line): return Self.middle(of: line)
        case .area(let parts):
            let rings = parts.filter { $0.count >= 4 && $0.first == $0.last }
            if let ring = rings.max(by: { Self.areaSquareDegrees($0) < Self.areaSquareDegrees($1) }),
                let centroid = Self.centroid(ofRing: ring)
            {
                return centroid
            }
            let points = parts.flatMap { $0 }
            let count = Double(max(points.count, 1))
            return Coordinate(
                latitude: points.reduce(0) { $0 + $1.latitude } / count,
                longitude: points.reduce(0) { $0 + $1.longitude } / count)
        }
    }

    /// The area of the largest closed ring, in square metres (0 for points, lines and clipped outlines).
    var areaSquareMeters: Double {
        guard case .area(let parts) = self else { return 0 }
        let rings = parts.filter { $0.count >= 4 && $0.first == $0.last }
        guard let ring = rings.max(by: { Self.areaSquareDegrees($0) < Self.areaSquareDegrees($1) }) else { return 0 }
        let projection = LocalProjection(referenceLatitude: ring[0].latitude)
        return Self.areaSquareDegrees(ring) * projection.metersPerDegreeLatitude * projection.metersPerDegreeLongitude
    }

    /// The point half-way along `line` by length.
    static func middle(of line: [Coordinate]) -> Coordinate {
        guard line.count > 1 else { return line.first ?? Coordinate(latitude: 0, longitude: 0) }
        var lengths: [Double] = []
        var total = 0.0
        for i in 1..<line.count {
            let d = line[i - 1].distanceMeters(to: line[i])
            lengths.append(d)
            total += d
        }
        var remaining = total / 2
        for (i, d) in lengths.enumerated() {
            if remaining <= d, d > 0 {
                let t = remaining / d
                let a = line[i]
                let b = line[i + 1]
                return Coordinate(
                    latitude: a.latitude + t * (b.latitude - a.latitude),
                    longitude: a.longitude + t * (b.longitude - a.longitude))
            }
            remaining -= d
        }
        return line[line.count / 2]
    }

    static func areaSquareDegrees(_ ring: [Coordinate]) -> Double {
        var sum = 0.0
        for i in 0..<(ring.count - 1) {
            sum += ring[i].longitude * ring[i + 1].latitude - ring[i + 1].longitude * ring[i].latitude
        }
        return abs(sum / 2)
    }

    static func centroid(ofRing ring: [Coordinate]) -> Coordinate? {
        let origin = ring[0]
        var area = 0.0
        var cx = 0.0
        var cy = 0.0
        for i in 0..<(ring.count - 1) {
            let x0 = ring[i].longitude - origin.longitude
            let y0 = ring[i].latitude - origin.latitude
            let x1 = ring[i + 1].longitude - origin.longitude
            let y1 = ring[i + 1].latitude - origin.latitude
            let cross = x0 * y1 - x1 * y0
            area += cross
            cx += (x0 + x1) * cross
            cy += (y0 + y1) * cross
        }
        guard abs(area) > 1e-18 else { return nil }
        return Coordinate(latitude: origin.latitude + cy / (3 * area), longitude: origin.longitude + cx / (3 * area))
    }
}
