import CabGeo

/// A uniform grid over street segments, for "the nearest named street" at build time (the display address of
/// a POI without its own). Cells are about 200 m.
struct SegmentGrid {
    struct Segment {
        var a: Coordinate
        var b: Coordinate
        var street: Int
    }

    static let cellDegreesLatitude = 0.002
    let cellDegreesLongitude: Double
    let projection: LocalProjection
    private var cells: [Int64: [Segment]] = [:]

    /// An empty grid tuned for latitudes near `referenceLatitude`.
    init(referenceLatitude: Double) {
        projection = LocalProjection(referenceLatitude: referenceLatitude)
        cellDegreesLongitude =
            Self.cellDegreesLatitude
            / max(
                0.1,
                projection.metersPerDegreeLongitude
                    / projection.metersPerDegreeLatitude)
    }

    private func cell(_ lat: Double, _ lon: Double) -> (Int64, Int64) {
        (Int64((lat / Self.cellDegreesLatitude).rounded(.down)), Int64((lon / cellDegreesLongitude).rounded(.down)))
    }

    private func key(_ y: Int64, _ x: Int64) -> Int64 { y &* 4_000_000 &+ x }

    /// Adds every segment of `line`, tagged with `street` (an index the caller understands).
    mutating func insert(_ line: [Coordinate], street: Int) {
        for i in 1..<max(line.count, 1) {
            let a = line[i - 1]
            let b = line[i]
            let (y0, x0) = cell(min(a.latitude, b.latitude), min(a.longitude, b.longitude))
            let (y1, x1) = cell(max(a.latitude, b.latitude), max(a.longitude, b.longitude))
            guard (y1 - y0 + 1) * (x1 - x0 + 1) <= 400 else { continue }  // a degenerate multi-km edge
            for y in y0...y1 {
                for x in x0...x1 { cells[key(y, x), default: []].append(Segment(a: a, b: b, street: street)) }
            }
        }
    }

    /// The street nearest to `point` within about `radiusMeters` (one ring of cells), and its distance.
    func nearest(to point: Coordinate, radiusMeters: Double) -> (street: Int, distanceMeters: Double)? {
        let (cy, cx) = cell(point.latitude, point.longitude)
        var best: (street: Int, distanceMeters: Double)?
        for y in (cy - 1)...(cy + 1) {
            for x in (cx - 1)...(cx + 1) {
                for s in cells[key(y, x)] ?? [] {
                    let d = projection.project(point, ontoSegmentFrom: s.a, to: s.b).distanceMeters
                    if d <= radiusMeters, d < (best?.distanceMeters ?? .infinity) { best = (s.street, d) }
                }
            }
        }
        return best
    }
}
