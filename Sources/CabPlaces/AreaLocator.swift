import CabGeo

/// Names the district and the city a place lies in ("Kluuvi, Helsinki"), at build time, so that two
/// same-named results can be told apart: the smallest containing outline of each level (a district-level
/// boundary or `place=suburb` polygon; a city or town), else the nearest `place=*` node of that level within
/// `districtRadiusMeters` / `cityRadiusMeters`.
struct AreaLocator {
    /// How far a district's `place=*` node may be from a place it names.
    static let districtRadiusMeters = 1500.0
    /// How far a city's or town's `place=*` node may be from a place it names.
    static let cityRadiusMeters = 15_000.0

    enum Level { case district, city }

    struct Outline {
        var name: String
        var source: PlaceSourceID
        var level: Level
        var rings: [[Coordinate]]
        var box: BoundingBox
        var areaSquareDegrees: Double
    }

    struct Center {
        var name: String
        var source: PlaceSourceID
        var level: Level
        var coordinate: Coordinate
    }

    private var outlines: [Outline] = []
    private var centers: [Center] = []

    /// The level an area category names, if any.
    static func level(ofLabel label: String) -> Level? {
        switch label {
        case "district", "suburb", "neighbourhood", "quarter", "borough", "locality": .district
        case "city", "town", "municipality", "village": .city
        default: nil
        }
    }

    /// A locator over the areas among `records`.
    init(_ records: [PlaceRecord]) {
        for record in records where record.kind == .area {
            guard let level = Self.level(ofLabel: record.category.label) else { continue }
            switch record.geometry {
            case .point(let p):
                centers.append(Center(name: record.name, source: record.source, level: level, coordinate: p))
            case .area(let parts):
                let rings = parts.filter { $0.count >= 3 }
                guard let box = BoundingBox(enclosing: rings.flatMap { $0 }) else { continue }
                let area = rings.map { PlaceGeometry.areaSquareDegrees($0 + [$0[0]]) }.max() ?? 0
                outlines.append(
                    Outline(
                        name: record.name, source: record.source, level: level, rings: rings, box: box,
                        areaSquareDegrees: area))
            case .line:
                continue
            }
        }
        // Smallest first: the first outline that contains a point is the most specific.
        outlines.sort { $0.areaSquareDegrees < $1.areaSquareDegrees }
    }

    /// "District, City" for `record` (either part may be missing; never the record's own name).
    /// - Complexity: O(outlines + centres) per call, each outline's ring only when its box contains the point.
    func describe(_ record: PlaceRecord) -> String {
        let point = record.coordinate
        var parts: [String] = []
        var levels: [Level] = [.district, .city]
        if record.kind == .area {
            // An area names only what is above it: a district its city, a city nothing.
            switch Self.level(ofLabel: record.category.label) {
            case .district: levels = [.city]
            case .city: levels = []
            case nil:
                if ["country", "region", "state", "province", "county"].contains(record.category.label) { levels = [] }
            }
        }
        for level in levels {
            var found: String?
            for outline in outlines where outline.level == level && outline.source != record.source {
                if outline.box.contains(point), outline.rings.contains(where: { $0.ringContains(point) }) {
                    found = outline.name
                    break
                }
            }
            if found == nil {
                let radius = level == .district ? Self.districtRadiusMeters : Self.cityRadiusMeters
                var nearest = radius
                for center in centers where center.level == level && center.source != record.source {
                    let d = center.coordinate.distanceMeters(to: point)
                    if d <= nearest {
                        nearest = d
                        found = center.name
                    }
                }
            }
            if let found, found != record.name, !parts.contains(found) { parts.append(found) }
        }
        return parts.joined(separator: ", ")
    }
}
