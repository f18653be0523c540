import CabGeo

/// Finds the nearest point on a road: a uniform grid (in metres, around the map's centre) over the segments of
/// every piece in the largest strongly connected component (or of every piece, when asked).
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

    /// Indexes `graph`'s roads.
    /// - Complexity: O(segments), about one cell per segment for street-sized segments.
    /// With `largestComponentOnly` false it also snaps onto roads cut off from the rest (routes may then fail).
    public init(
        graph: RoadGraph, maxDistanceMeters: Double = 1000, cellMeters: Double = 100,
        largestComponentOnly: Bool = true
    ) {
        self.graph = graph
        self.maxDistanceMeters = maxDistanceMeters
        self.cellMeters = cellMeters
        let box = BoundingBox(enclosing: graph.coordinates) ?? BoundingBox(
            southWest: Coordinate(latitude: 0, longitude: 0), northEast: Coordinate(latitude: 0, longitude: 0))
        origin = box.southWest
        projection = LocalProjection(referenceLatitude: box.center.latitude)
        let extent = projection.offsetMeters(of: box.northEast, from: origin)
        columns = max(1, Int(extent.x / cellMeters) + 1)
        rows = max(1, Int(extent.y / cellMeters) + 1)
        var segmentPieces = [UInt32](repeating: UInt32.max, count: graph.coordinates.count)
        var cellOfSegment: [(cells: (Int, Int, Int, Int), segment: UInt32)] = []
        var counts = [UInt32](repeating: 0, count: columns * rows + 1)
        for piece in 0..<graph.pieceCount where !largestComponentOnly || graph.pieceIsInLargestComponent(piece) {
            let range = graph.coordinateRange(ofPiece: piece)
            for i in range.dropLast() {
                segmentPieces[i] = UInt32(piece)
                let a = projection.offsetMeters(of: graph.coordinates[i], from: origin)
                let b = projection.offsetMeters(of: graph.coordinates[i + 1], from: origin)
                let cells = (
                    clamp(Int(min(a.x, b.x) / cellMeters), columns), clamp(Int(max(a.x, b.x) / cellMeters), columns),
                    clamp(Int(min(a.y, b.y) / cellMeters), rows), clamp(Int(max(a.y, b.y) / cellMeters), rows)
                )
                cellOfSegment.append((cells, UInt32(i)))
                for y in cells.2...cells.3 { for x in cells.0...cells.1 { counts[y * columns + x + 1] += 1 } }
            }
        }
        for c in 0..<(columns * rows) { counts[c + 1] += counts[c] }
        var next = counts
        var items = [UInt32](repeating: 0, count: Int(counts[columns * rows]))
        for (cells, segment) in cellOfSegment {
            for y in cells.2...cells.3 {
                for x in cells.0...cells.1 {
                    items[Int(next[y * columns + x])] = segment
                    next[y * columns + x] += 1
                }
            }
        }
        cellFirst = counts
        cellSegments = items
        self.segmentPieces = segmentPieces
    }

    /// The nearest point on a road to `coordinate`.
    /// - Throws: `RoutingError` `.invalidCoordinate`, or `.noRoadNearby` ("no road within N m of LAT,LON").
    /// - Complexity: O(segments in the cells within the distance found).
    public func snap(_ coordinate: Coordinate) throws(RoutingError) -> SnappedPoint {
        guard coordinate.isValid else {
            throw RoutingError(.invalidCoordinate, "\(coordinate) is not a valid latitude,longitude")
        }
        let p = projection.offsetMeters(of: coordinate, from: origin)
        let cx = Int((p.x / cellMeters).rounded(.down))
        let cy = Int((p.y / cellMeters).rounded(.down))
        var best: (segment: Int, point: Coordinate, t: Double, distance: Double)? = nil
        var ring = 0
        while true {
            // Every cell not yet looked at is at least (ring - 1) cells away from the query point.
            let reach = Double(max(ring - 1, 0)) * cellMeters
            if reach > maxDistanceMeters || reach > (best?.distance ?? .infinity) { break }
            if ring > columns + rows + abs(cx) + abs(cy) { break }
            for y in (cy - ring)...(cy + ring) where y >= 0 && y < rows {
                let onEdgeRow = y == cy - ring || y == cy + ring
                for x in (cx - ring)...(cx + ring) where x >= 0 && x < columns {
                    guard onEdgeRow || x == cx - ring || x == cx + ring else { continue }
                    let cell = y * columns + x
                    for k in Int(cellFirst[cell])..<Int(cellFirst[cell + 1]) {
                        let s = Int(cellSegments[k])
                        let hit = projection.project(
                            coordinate, ontoSegmentFrom: graph.coordinates[s], to: graph.coordinates[s + 1])
                        if hit.distanceMeters < (best?.distance ?? .infinity) {
                            best = (s, hit.point, hit.fraction, hit.distanceMeters)
                        }
                    }
                }
            }
            ring += 1
        }
        guard let best, best.distance <= maxDistanceMeters else {
            throw RoutingError(
                .noRoadNearby, "no road within \(Int(maxDistanceMeters)) m of \(coordinate)")
        }
        let piece = Int(segmentPieces[best.segment])
        let range = graph.coordinateRange(ofPiece: piece)
        var along = 0.0
        var total = 0.0
        for i in range.dropLast() {
            let length = graph.coordinates[i].distanceMeters(to: graph.coordinates[i + 1])
            if i < best.segment { along += length }
            if i == best.segment { along += length * best.t }
            total += length
        }
        return SnappedPoint(
            query: coordinate, coordinate: best.point, piece: piece, segment: best.segment - range.lowerBound,
            fraction: total > 0 ? along / total : 0, distanceMeters: best.distance)
    }

    /// Snaps both coordinates and seeds a query between them.
    public func endpoints(from start: Coordinate, to end: Coordinate) throws(RoutingError) -> RouteEndpoints {
        RouteEndpoints(start: try snap(start), end: try snap(end), in: graph)
    }
}

private func clamp(_ value: Int, _ count: Int) -> Int { min(max(value, 0), count - 1) }
