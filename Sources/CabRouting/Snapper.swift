import CabGeo

/// Finds the nearest point on a road: a uniform grid of small cells (in metres, around the map's south-west
/// corner) over the segments of every piece in the largest strongly connected component (or of every piece, when
/// asked).
///
/// Each cell stores its segments' ends inline, projected to planar metres once when the index is built (Float
/// metres from the cell's corner: one cache line holds several), and every piece's running length is kept. A query scans a rectangle of cells grown one row or column at a time on the side nearest the
/// point, and stops as soon as the nearest segment found is closer than anything outside it; candidates close to
/// the best are measured again in Double, and the winner is projected exactly: no trigonometry per candidate.
/// Of two segments exactly as near, the one stored first wins.
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
    /// The segments filed under each cell, with their ends relative to the cell's south-west corner.
    private let cellEntries: [SnapEntry]
    private let segmentPieces: [UInt32]
    /// Metres along its piece (great-circle, summed segment by segment) before each coordinate.
    private let metersAlongPiece: [Double]

    /// Indexes `graph`'s roads.
    /// - Complexity: O(segments), a few cells per street-sized segment.
    /// With `largestComponentOnly` false it also snaps onto roads cut off from the rest (routes may then fail).
    /// `cellMeters` grows on sparse maps so that there are at most about two cells per segment.
    public init(
        graph: RoadGraph, maxDistanceMeters: Double = 1000, cellMeters: Double = 32,
        largestComponentOnly: Bool = true
    ) {
        self.graph = graph
        self.maxDistanceMeters = maxDistanceMeters
        let box =
            BoundingBox(enclosing: graph.coordinates)
            ?? BoundingBox(
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
        while (extent.x / cell + 1) * (extent.y / cell + 1) > Double(2 * max(segments.count, 1)) { cell *= 1.5 }
        let grid = SnapGrid(
            cellMeters: cell, columns: max(1, Int(extent.x / cell) + 1), rows: max(1, Int(extent.y / cell) + 1))
        (cellFirst, cellEntries) = grid.index(segments: segments, planar: planar)
        self.cellMeters = cell
        columns = grid.columns
        rows = grid.rows
        self.segmentPieces = segmentPieces
        self.metersAlongPiece = metersAlongPiece
    }

    /// The nearest point on a road to `coordinate`.
    /// - Throws: `RoutingError` `.invalidCoordinate`, or `.noRoadNearby` ("no road within N m of LAT,LON").
    /// - Complexity: O(segments in the cells within the distance found).
    public func snap(_ coordinate: Coordinate) throws(RoutingError) -> SnappedPoint {
        guard coordinate.isValid else {
            throw RoutingError(.invalidCoordinate, "\(coordinate) is not a valid latitude,longitude")
        }
        guard let point = finish(coordinate, nearestSegment(to: planar(coordinate))) else {
            throw RoutingError(.noRoadNearby, "no road within \(Int(maxDistanceMeters)) m of \(coordinate)")
        }
        return point
    }

    /// Snaps every coordinate, nil where `snap(_:)` would throw: the same answers, in passes over all of them
    /// (cells, then the segments found, then their pieces), each pass first touching what it will read, so that
    /// the cache misses of different points overlap instead of following one another (a dispatch snaps every
    /// candidate driver, each somewhere random in the city).
    /// - Complexity: as one `snap(_:)` per coordinate.
    public func snap(_ coordinates: [Coordinate]) -> [SnappedPoint?] {
        var sink: UInt32 = 0
        // Each point's cell, and the cells' offsets of its row and the rows either side.
        let cells = coordinates.map { coordinate -> Int in
            guard coordinate.isValid else { return -1 }
            let p = planar(coordinate)
            let cx = Int(min(max((p.x / cellMeters).rounded(.down), -1e9), 1e9))
            let cy = Int(min(max((p.y / cellMeters).rounded(.down), -1e9), 1e9))
            guard cx >= 0 && cx < columns && cy >= 0 && cy < rows else { return -1 }
            return cy * columns + cx
        }
        let cellCount = columns * rows
        cellFirst.withUnsafeBufferPointer { first in
            for cell in cells where cell >= 0 {
                sink &+= first[cell]
                if cell >= columns { sink &+= first[cell - columns] }
                if cell + columns < cellCount { sink &+= first[cell + columns] }
            }
            // The entries of those three rows' three cells around the point (a cache line holds three entries).
            cellEntries.withUnsafeBufferPointer { entries in
                for cell in cells where cell >= 0 {
                    for row in stride(from: cell - columns, through: cell + columns, by: columns)
                    where row >= 0 && row < cellCount {
                        var k = Int(first[max(row - 1, 0)])
                        let end = Int(first[min(row + 2, cellCount)])
                        while k < end {
                            sink &+= entries[k].segment
                            k += 3
                        }
                    }
                }
            }
        }
        let segments = coordinates.map { coordinate in
            coordinate.isValid ? nearestSegment(to: planar(coordinate)) : -1
        }
        for s in segments where s >= 0 {
            sink &+= segmentPieces[s] &+ UInt32(truncatingIfNeeded: metersAlongPiece[s].bitPattern)
        }
        for s in segments where s >= 0 {
            let piece = Int(segmentPieces[s])
            sink &+= graph.pieceFirstCoordinate[piece] &+ graph.pieceFirstCoordinate[piece + 1]
        }
        TouchSink.keep(sink)
        return zip(coordinates, segments).map { coordinate, segment in
            segment >= 0 ? finish(coordinate, segment) : nil
        }
    }

    /// `coordinate` in planar metres from the grid's origin.
    @inline(__always)
    private func planar(_ coordinate: Coordinate) -> SIMD2<Double> {
        let offset = projection.offsetMeters(of: coordinate, from: origin)
        return SIMD2(offset.x, offset.y)
    }

    /// The first coordinate of the nearest segment to `p` within `maxDistanceMeters` (planar), or -1.
    private func nearestSegment(to p: SIMD2<Double>) -> Int {
        let cx = Int(min(max((p.x / cellMeters).rounded(.down), -1e9), 1e9))
        let cy = Int(min(max((p.y / cellMeters).rounded(.down), -1e9), 1e9))
        var bestSegment = -1
        var bestSquared = Double.infinity
        // Candidates are compared in Float, relative to their cell's corner; any within `slack` of the best so far
        // is measured again in Double, so the answer is the Double-exact nearest segment.
        let slack: Float = 0.05
        var refineBelow = Float.infinity
        func consider(_ cell: Int, _ x: Int, _ y: Int) {
            let q = SIMD2<Float>(Float(p.x - Double(x) * cellMeters), Float(p.y - Double(y) * cellMeters))
            for k in Int(cellFirst[cell])..<Int(cellFirst[cell + 1]) {
                let e = cellEntries[k]
                let abx = e.bx - e.ax
                let aby = e.by - e.ay
                let apx = q.x - e.ax
                let apy = q.y - e.ay
                let lengthSquared = abx * abx + aby * aby
                var t = lengthSquared > 0 ? (apx * abx + apy * aby) / lengthSquared : 0
                t = min(1, max(0, t))
                let dx = apx - t * abx
                let dy = apy - t * aby
                let squared = dx * dx + dy * dy
                guard squared <= refineBelow else { continue }
                let s = Int(e.segment)
                let a = projection.offsetMeters(of: graph.coordinates[s], from: origin)
                let b = projection.offsetMeters(of: graph.coordinates[s + 1], from: origin)
                let exact = squaredDistance(p, SIMD2(a.x, a.y), SIMD2(b.x, b.y))
                if exact < bestSquared || (exact == bestSquared && s < bestSegment) {
                    bestSquared = exact
                    bestSegment = s
                    let reach = Float(exact.squareRoot()) + slack
                    refineBelow = reach * reach
                }
            }
        }
        // Grow a rectangle of scanned cells one row or column at a time, on the side nearest the point, until the
        // best segment found is nearer than anything outside it.
        var (x0, x1, y0, y1) = (cx, cx, cy, cy)
        if cx >= 0 && cx < columns && cy >= 0 && cy < rows { consider(cy * columns + cx, cx, cy) }
        while true {
            let west = p.x - Double(x0) * cellMeters
            let east = Double(x1 + 1) * cellMeters - p.x
            let south = p.y - Double(y0) * cellMeters
            let north = Double(y1 + 1) * cellMeters - p.y
            let margin = min(min(west, east), min(south, north))
            if margin > maxDistanceMeters { break }
            if margin > 0 && bestSquared < margin * margin { break }
            if x0 <= 0 && y0 <= 0 && x1 >= columns - 1 && y1 >= rows - 1 { break }
            if margin == west {
                x0 -= 1
                if x0 >= 0 && x0 < columns {
                    for y in max(y0, 0)..<max(min(y1 + 1, rows), max(y0, 0)) { consider(y * columns + x0, x0, y) }
                }
            } else if margin == east {
                x1 += 1
                if x1 >= 0 && x1 < columns {
                    for y in max(y0, 0)..<max(min(y1 + 1, rows), max(y0, 0)) { consider(y * columns + x1, x1, y) }
                }
            } else if margin == south {
                y0 -= 1
                if y0 >= 0 && y0 < rows {
                    for x in max(x0, 0)..<max(min(x1 + 1, columns), max(x0, 0)) { consider(y0 * columns + x, x, y0) }
                }
            } else {
                y1 += 1
                if y1 >= 0 && y1 < rows {
                    for x in max(x0, 0)..<max(min(x1 + 1, columns), max(x0, 0)) { consider(y1 * columns + x, x, y1) }
                }
            }
        }
        return bestSegment
    }

    /// The snapped point of `coordinate` on the segment starting at coordinate `segment` (-1: none), or nil when
    /// it is farther than `maxDistanceMeters`.
    private func finish(_ coordinate: Coordinate, _ segment: Int) -> SnappedPoint? {
        guard segment >= 0 else { return nil }
        let hit = projection.project(
            coordinate, ontoSegmentFrom: graph.coordinates[segment], to: graph.coordinates[segment + 1])
        guard hit.distanceMeters <= maxDistanceMeters else { return nil }
        let piece = Int(segmentPieces[segment])
        let range = graph.coordinateRange(ofPiece: piece)
        let length = graph.coordinates[segment].distanceMeters(to: graph.coordinates[segment + 1])
        let along = metersAlongPiece[segment] + length * hit.fraction
        let total = metersAlongPiece[range.upperBound - 1]
        return SnappedPoint(
            query: coordinate, coordinate: hit.point, piece: piece, segment: segment - range.lowerBound,
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
    func index(segments: [UInt32], planar: [SIMD2<Double>]) -> (first: [UInt32], entries: [SnapEntry]) {
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
        var entries = [SnapEntry](
            repeating: SnapEntry(ax: 0, ay: 0, bx: 0, by: 0, segment: 0), count: Int(first[columns * rows]))
        for s in segments {
            let a = planar[Int(s)]
            let b = planar[Int(s) + 1]
            cells(of: Int(s)) { cell in
                let corner = SIMD2(Double(cell % columns), Double(cell / columns)) * cellMeters
                entries[Int(next[cell])] = SnapEntry(
                    ax: Float(a.x - corner.x), ay: Float(a.y - corner.y), bx: Float(b.x - corner.x),
                    by: Float(b.y - corner.y), segment: s)
                next[cell] += 1
            }
        }
        return (first, entries)
    }
}

/// A segment filed under a cell: its ends in metres from the cell's south-west corner, and its first coordinate.
private struct SnapEntry {
    var ax: Float
    var ay: Float
    var bx: Float
    var by: Float
    var segment: UInt32
}

/// The squared distance in metres from `p` to the segment `a`-`b` (planar).
@inline(__always)
private func squaredDistance(_ p: SIMD2<Double>, _ a: SIMD2<Double>, _ b: SIMD2<Double>) -> Double {
    let ab = b - a
    let ap = p - a
    let lengthSquared = (ab * ab).sum()
    let t = lengthSquared > 0 ? min(1, max(0, (ap * ab).sum() / lengthSquared)) : 0
    let d = ap - t * ab
    return (d * d).sum()
}

private func clamp(_ value: Int, _ count: Int) -> Int { min(max(value, 0), count - 1) }
