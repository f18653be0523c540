import CabGeo

/// Line simplification for the base map's zoom bands.
public enum Simplification {
    /// The Douglas-Peucker simplification of `points`: keeps the end points and every point that lies more than
    /// `toleranceMeters` from the simplified line. Returns `points` unchanged for a tolerance of 0 or fewer
    /// than three points.
    /// - Complexity: O(n log n) typical, O(n²) worst case.
    public static func douglasPeucker(_ points: [Coordinate], toleranceMeters: Double) -> [Coordinate] {
        guard toleranceMeters > 0, points.count > 2 else { return points }
        let projection = LocalProjection(referenceLatitude: points[0].latitude)
        var keep = [Bool](repeating: false, count: points.count)
        keep[0] = true
        keep[points.count - 1] = true
        var stack: [(Int, Int)] = [(0, points.count - 1)]
        while let (first, last) = stack.popLast() {
            guard last > first + 1 else { continue }
            var farthest = first
            var farthestDistance = 0.0
            for i in (first + 1)..<last {
                let d = projection.project(points[i], ontoSegmentFrom: points[first], to: points[last]).distanceMeters
                if d > farthestDistance {
                    farthestDistance = d
                    farthest = i
                }
            }
            if farthestDistance > toleranceMeters {
                keep[farthest] = true
                stack.append((first, farthest))
                stack.append((farthest, last))
            }
        }
        return points.indices.compactMap { keep[$0] ? points[$0] : nil }
    }

    /// `geometry` simplified to `toleranceMeters`; rings that collapse below four points and lines below two
    /// are dropped, and nil is returned when nothing is left.
    public static func simplify(_ geometry: BaseMapGeometry, toleranceMeters: Double) -> BaseMapGeometry? {
        func line(_ points: [Coordinate]) -> [Coordinate]? {
            let simplified = douglasPeucker(points, toleranceMeters: toleranceMeters)
            return simplified.count >= 2 ? simplified : nil
        }
        func polygon(_ rings: [[Coordinate]]) -> [[Coordinate]]? {
            guard let outer = rings.first else { return nil }
            let simplifiedOuter = douglasPeucker(outer, toleranceMeters: toleranceMeters)
            guard simplifiedOuter.count >= 4 else { return nil }
            let holes = rings.dropFirst().map { douglasPeucker($0, toleranceMeters: toleranceMeters) }
            return [simplifiedOuter] + holes.filter { $0.count >= 4 }
        }
        switch geometry {
        case .lineString(let points):
            return line(points).map { .lineString($0) }
        case .multiLineString(let lines):
            let kept = lines.compactMap(line)
            return kept.isEmpty ? nil : .multiLineString(kept)
        case .polygon(let rings):
            return polygon(rings).map { .polygon($0) }
        case .multiPolygon(let polygons):
            let kept = polygons.compactMap(polygon)
            return kept.isEmpty ? nil : .multiPolygon(kept)
        }
    }
}
