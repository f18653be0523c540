import CabGeo

/// Finds the nearest point on a road: a uniform grid of small cells (in metres, around the map's south-west
/// corner) over the segments of every piece in the largest strongly connected component (or of every piece, when
/// asked).
///
/// Every shape point is projected to planar metres once, when the index is built, and every piece's running
/// length is kept, so a query is a ring search over cells with squared-distance comparisons and one exact
/// projection of the winning segment: no trigonometry per candidate. The ring search stops as soon as the nearest
/// segment found is closer than any cell not yet looked at. Of two segments exactly as near, the one stored first
/// wins.
public struct Snapper: Sendable {
    /// The graph snapped onto.
    public let graph: RoadGraph
    /// How far a coordinate may be from the nearest road, in metres.
    public var maxDistanceMeters: Double
    private let projection: LocalProjection
    private let origin: Coordinate
    private let cellMeters: Double
    private let columns: Int
    private let rows: Int
    private let cellFirst: [UInt32]
    /// Global coordinate index of each segment's first point (its piece is found through `segmentPieces`).
    private let cellSegments: [UInt32]
    private let segmentPieces: [UInt32]
    /// Each coordinate in planar metres from `origin`.
    private let planar: [SIMD2<Double>]
    /// Metres along its piece (great-circle, summed segment by segment) before each coordinate.
    private let metersAlongPiece: [Double]

    /// Indexes `graph`'s roads.
    /// - Complexity: O(segments), a few cells per street-sized segment.
    /// With `largestComponentOnly` false it also snaps onto roads cut off from the rest (routes may then fail).
    /// `cellMeters` grows on sparse maps so that there are at most about four cells per segment.
    public init(
        graph: RoadGraph, maxDistanceMeters: Double = 1000, cellMeters: Double = 40,
        largestComponentOnly: Bool = true
    ) {
        self.graph = graph
        self.maxDistanceMeters = maxDistanceMeters
        let box = BoundingBox(enclosing: graph.coordinates) ?? BoundingBox(
            southWest: Coordinate(latitude: 0, longitude: 0), northEast: Coordinate(latitude: 0, longitude: 0))
        let origin = box.southWest
        let projection = LocalProjection(referenceLatitude: box.center.latitude)
        self.origin = origin
        self.projection = projection
        let coordinates = graph.coordinates
        var planar = [SIMD2<Double>](repeating: .zero, count: coordinates.count)
        var metersAlongPiece = [Double](repeating: 0, count: coordinates.count)
        var segmentPieces = [UInt32](repeating: UInt32.max, count: coordinates.count)
        var segments: [UInt32] = []
        for piece in 0..<graph.pieceCount {
            let range = graph.coordinateRange(ofPiece: piece)
            var along = 0.0
            for i in range {
                let offset = projection.offsetMeters(of: coordinates[i], from: origin)
                planar[i] = SIMD2(offset.x, offset.y)
                metersAlongPiece[i] = along
                if i + 1 < range.upperBound { along += coordinates[i].distanceMeters(to: coordinates[i + 1]) }
            }
            guard !largestComponentOnly || graph.pieceIsInLargestComponent(piece) else { continue }
            for i in range.dropLast() {
                segmentPieces[i] = UInt32(piece)
                segments.append(UInt32(i))
            }
        }
        let extent = projection.offsetMeters(of: box.northEast, from: origin)
        var cell = max(cellMeters, 1)
        while (extent.x / cell + 1) * (extent.y / cell + 1) > Double(4 * max(segments.count, 1)) { cell *= 2 }
        let grid = SnapGrid(cellMeters: cell, columns: max(1, Int(extent.x / cell) + 1), rows: max(1, Int(extent.y / cell) + 1))
        (cellFirst, cellSegments) = grid.index(segments: segments, planar: planar)
        self.cellMeters = cell
        columns = grid.columns
        rows = grid.rows
        self.segmentPieces = segmentPieces
        self.planar = planar
        self.metersAlongPiece = metersAlongPiece
    }

    /// The nearest point on a road to `coordinate`.
    /// - Throws: `RoutingError` `.invalidCoordinate`, or `.noRoadNearby` ("no road within N m of LAT,LON").
    /// - Complexity: O(segments in the cells within the distance found).
    public func snap(_ coordinate: Coordinate) throws(RoutingError) -> SnappedPoint {
        guard coordinate.isValid else {
            throw RoutingError(.invalidCoordinate, "\(coordinate) is not a valid latitude,longitude")
        }
        let offset = projection.offsetMeters(of: coordinate, from: origin)
        let p = SIMD2(offset.x, offset.y)
        let cx = Int(min(max((p.x / cellMeters).rounded(.down), -1e9), 1e9))
        let cy = Int(min(max((p.y / cellMeters).rounded(.down), -1e9), 1e9))
        var bestSegment = -1
        var bestSquared = Double.infinity
        var ring = 0
        planar.withUnsafeBufferPointer { planar in
            cellSegments.withUnsafeBufferPointer { cellSegments in
                cellFirst.withUnsafeBufferPointer { cellFirst in
                    func scan(_ x: Int, _ y: Int) {
                        let cell = y * columns + x
                        for k in Int(cellFirst[cell])..<Int(cellFirst[cell + 1]) {
                            let s = Int(cellSegments[k])
                            let a = planar[s]
                            let ab = planar[s + 1] - a
                            let ap = p - a
                            let lengthSquared = (ab * ab).sum()
                            var t = lengthSquared > 0 ? (ap * ab).sum() / lengthSquared : 0
                            t = min(1, max(0, t))
                            let d = ap - t * ab
                            let squared = (d * d).sum()
                            if squared < bestSquared || (squared == bestSquared && s < bestSegment) {
                                bestSquared = squared
                                bestSegment = s
                            }
                        }
                    }
                    while true {
                        let (x0, x1, y0, y1) = (cx - ring, cx + ring, cy - ring, cy + ring)
                        let xs = max(x0, 0)..<max(min(x1 + 1, columns), max(x0, 0))
                        for y in max(y0, 0)..<max(min(y1 + 1, rows), max(y0, 0)) {
                            if y == y0 || y == y1 {
                                for x in xs { scan(x, y) }
                            } else {
                                if x0 >= 0 && x0 < columns { scan(x0, y) }
                                if x1 != x0 && x1 >= 0 && x1 < columns { scan(x1, y) }
                            }
                        }
                        // Every cell not yet looked at lies outside the square of rings scanned so far.
                        let margin = min(
                            min(p.x - Double(x0) * cellMeters, Double(x1 + 1) * cellMeters - p.x),
                            min(p.y - Double(y0) * cellMeters, Double(y1 + 1) * cellMeters - p.y))
                        if margin > maxDistanceMeters { break }
                        if margin > 0 && bestSquared < margin * margin { break }
                        if x0 <= 0 && y0 <= 0 && x1 >= columns - 1 && y1 >= rows - 1 { break }
                        ring += 1
                    }
                }
            }
        }
        guard bestSegment >= 0 else {
            throw RoutingError(.noRoadNearby, "no road within \(Int(maxDistanceMeters)) m of \(coordinate)")
        }
        let hit = projection.project(
            coordinate, ontoSegmentFrom: graph.coordinates[bestSegment], to: graph.coordinates[bestSegment + 1])
        guard hit.distanceMeters <= maxDistanceMeters else {
            throw RoutingError(.noRoadNearby, "no road within \(Int(maxDistanceMeters)) m of \(coordinate)")
        }
        let piece = Int(segmentPieces[bestSegment])
        let range = graph.coordinateRange(ofPiece: piece)
        let length = graph.coordinates[bestSegment].distanceMeters(to: graph.coordinates[bestSegment + 1])
        let along = metersAlongPiece[bestSegment] + length * hit.fraction
        let total = metersAlongPiece[range.upperBound - 1]
        return SnappedPoint(
            query: coordinate, coordinate: hit.point, piece: piece, segment: bestSegment - range.lowerBound,
            fraction: total > 0 ? along / total : 0, distanceMeters: hit.distanceMeters)
    }

    /// Snaps both coordinates and seeds a query between them.
    public func endpoints(from start: Coordinate, to end: Coordinate) throws(RoutingError) -> RouteEndpoints {
        RouteEndpoints(start: try snap(start), end: try snap(end), in: graph)
    }
}

/// The cell layout of a `Snapper` and how segments are filed into cells.
private struct SnapGrid {
    let cellMeters: Double
    let columns: Int
    let rows: Int

    /// Files each segment (by its first coordinate's index) under every cell it passes through: the cells of its
    /// bounding box whose centre lies within half a cell diagonal of it. Returns CSR offsets and entries.
    func index(segments: [UInt32], planar: [SIMD2<Double>]) -> (first: [UInt32], entries: [UInt32]) {
        // Half a cell diagonal, squared, with a little room for rounding (a superset of cells is harmless).
        let halfDiagonalSquared = cellMeters * cellMeters / 2 * (1 + 1e-9) + 1e-9
        func cells(of s: Int, _ visit: (Int) -> Void) {
            let a = planar[s]
            let b = planar[s + 1]
            let x0 = clamp(Int(min(a.x, b.x) / cellMeters), columns)
            let x1 = clamp(Int(max(a.x, b.x) / cellMeters), columns)
            let y0 = clamp(Int(min(a.y, b.y) / cellMeters), rows)
            let y1 = clamp(Int(max(a.y, b.y) / cellMeters), rows)
            let ab = b - a
            let lengthSquared = (ab * ab).sum()
            for y in y0...y1 {
                for x in x0...x1 {
                    if x0 != x1 && y0 != y1 {
                        let centre = SIMD2(Double(x) + 0.5, Double(y) + 0.5) * cellMeters
                        let ac = centre - a
                        let t = lengthSquared > 0 ? min(1, max(0, (ac * ab).sum() / lengthSquared)) : 0
                        let d = ac - t * ab
                        if (d * d).sum() > halfDiagonalSquared { continue }
                    }
                    visit(y * columns + x)
                }
            }
        }
        var first = [UInt32](repeating: 0, count: columns * rows + 1)
        for s in segments { cells(of: Int(s)) { first[$0 + 1] += 1 } }
        for c in 0..<(columns * rows) { first[c + 1] += first[c] }
        var next = first
        var entries = [UInt32](repeating: 0, count: Int(first[columns * rows]))
        for s in segments {
            cells(of: Int(s)) { cell in
                entries[Int(next[cell])] = s
                next[cell] += 1
            }
        }
        return (first, entries)
    }
}

private func clamp(_ value: Int, _ count: Int) -> Int { min(max(value, 0), count - 1) }
