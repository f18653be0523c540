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
    /// Whether `snap(_:)` over a list walks every point's cells in Float first and measures the candidates in
    /// Double after (their coordinates touched in between); off for the previous round's Double check during the
    /// walk (the benchmark's same-run comparison). The answers are the same either way.
    package var refinesAfterWalk = true
    private let projection: LocalProjection
    private let origin: Coordinate
    private let cellMeters: Double
    private let columns: Int
    private let rows: Int
    private let cellFirst: ContractionBuffer<UInt32>
    /// The segments filed under each cell, with their ends relative to the cell's south-west corner.
    private let cellEntries: ContractionBuffer<SnapEntry>
    private let segmentPieces: ContractionBuffer<UInt32>
    /// Metres along its piece (great-circle, summed segment by segment) before each coordinate.
    private let metersAlongPiece: ContractionBuffer<Double>

    /// The cell size snappers use unless told otherwise, in metres.
    public static let defaultCellMeters = 32.0

    /// Indexes `graph`'s roads, or takes the index stored with a graph loaded from a file (`RoadGraph.load`) when
    /// it was built with the same settings (the default cell size, the largest component only): then nothing is
    /// built, and the cells are read where the file is mapped.
    /// - Complexity: O(segments), a few cells per street-sized segment; O(1) with a stored index.
    /// With `largestComponentOnly` false it also snaps onto roads cut off from the rest (routes may then fail).
    /// `cellMeters` grows on sparse maps so that there are at most about two cells per segment.
    public init(
        graph: RoadGraph, maxDistanceMeters: Double = 1000, cellMeters: Double = Snapper.defaultCellMeters,
        largestComponentOnly: Bool = true
    ) {
        let grid: SnapperGrid
        if let stored = graph.storedSnapperGrid, stored.requestedCellMeters == cellMeters,
            stored.largestComponentOnly == largestComponentOnly
        {
            grid = stored
        } else {
            grid = Self.buildGrid(graph: graph, cellMeters: cellMeters, largestComponentOnly: largestComponentOnly)
        }
        self.init(graph: graph, grid: grid, maxDistanceMeters: maxDistanceMeters)
    }

    /// A snapper over `graph` answering from `grid`.
    init(graph: RoadGraph, grid: SnapperGrid, maxDistanceMeters: Double) {
        self.graph = graph
        self.maxDistanceMeters = maxDistanceMeters
        origin = Coordinate(latitude: grid.originLatitude, longitude: grid.originLongitude)
        projection = LocalProjection(referenceLatitude: grid.referenceLatitude)
        cellMeters = grid.cellMeters
        columns = grid.columns
        rows = grid.rows
        cellFirst = grid.cellFirst
        cellEntries = grid.cellEntries
        segmentPieces = grid.segmentPieces
        metersAlongPiece = grid.metersAlongPiece
    }

    /// Builds the cell grid over `graph`'s pieces (see `init(graph:maxDistanceMeters:cellMeters:largestComponentOnly:)`).
    static func buildGrid(graph: RoadGraph, cellMeters: Double, largestComponentOnly: Bool) -> SnapperGrid {
        let box =
            BoundingBox(enclosing: graph.coordinates)
            ?? BoundingBox(
                southWest: Coordinate(latitude: 0, longitude: 0), northEast: Coordinate(latitude: 0, longitude: 0))
        let origin = box.southWest
        let referenceLatitude = box.center.latitude
        let projection = LocalProjection(referenceLatitude: referenceLatitude)
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
        let layout = SnapGrid(
            cellMeters: cell, columns: max(1, Int(extent.x / cell) + 1), rows: max(1, Int(extent.y / cell) + 1))
        let (cellFirst, cellEntries) = layout.index(segments: segments, planar: planar)
        return SnapperGrid(
            requestedCellMeters: cellMeters, largestComponentOnly: largestComponentOnly,
            originLatitude: origin.latitude, originLongitude: origin.longitude, referenceLatitude: referenceLatitude,
            cellMeters: cell, columns: layout.columns, rows: layout.rows, cellFirst: ContractionBuffer(cellFirst),
            cellEntries: ContractionBuffer(cellEntries), segmentPieces: ContractionBuffer(segmentPieces),
            metersAlongPiece: ContractionBuffer(metersAlongPiece))
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
        guard refinesAfterWalk else {
            sink = touchThreeRows(coordinates)
            let segments = coordinates.map { coordinate in
                coordinate.isValid ? nearestSegment(to: planar(coordinate)) : -1
            }
            return finishAll(coordinates, segments, sink: sink)
        }
        // Each point's block of 2×2 cells: its own and the neighbours on the sides of the cell it is nearest to
        // (where its walk goes first, and for a point within half a cell of a road, the whole walk), as the first
        // cell of the block's two rows; then their offsets, then their entries (a cache line holds three).
        var blocks: [SIMD2<Int32>] = []
        blocks.reserveCapacity(coordinates.count)
        for coordinate in coordinates {
            guard coordinate.isValid else {
                blocks.append(SIMD2(-1, -1))
                continue
            }
            let p = planar(coordinate)
            let fx = min(max(p.x / cellMeters, -1e9), 1e9)
            let fy = min(max(p.y / cellMeters, -1e9), 1e9)
            let cx = Int(fx.rounded(.down))
            let cy = Int(fy.rounded(.down))
            guard cx >= 0 && cx < columns && cy >= 0 && cy < rows else {
                blocks.append(SIMD2(-1, -1))
                continue
            }
            let x0 = fx - Double(cx) < 0.5 ? max(cx - 1, 0) : min(cx, columns - 2)
            let otherRow = fy - Double(cy) < 0.5 ? cy - 1 : cy + 1
            let x = max(x0, 0)
            blocks.append(
                SIMD2(
                    Int32(cy * columns + x), otherRow >= 0 && otherRow < rows ? Int32(otherRow * columns + x) : -1))
        }
        let cellCount = columns * rows
        do {
            let first = cellFirst
            for block in blocks {
                for i in 0..<2 where block[i] >= 0 { sink &+= first[Int(block[i])] &+ first[Int(block[i]) + 1] }
            }
            do {
                let entries = cellEntries
                for block in blocks {
                    for i in 0..<2 where block[i] >= 0 {
                        var k = Int(first[Int(block[i])])
                        let end = Int(first[min(Int(block[i]) + 2, cellCount)])
                        while k < end {
                            sink &+= entries[k].segment
                            k += 3
                        }
                    }
                }
            }
        }
        // The Float walk of every point, then its candidates' coordinates touched, then the Double check.
        var candidates: [SnapCandidate] = []
        candidates.reserveCapacity(4 * coordinates.count)
        var candidateEnds: [Int] = []
        candidateEnds.reserveCapacity(coordinates.count)
        for coordinate in coordinates {
            if coordinate.isValid { nearestCandidates(to: planar(coordinate), into: &candidates) }
            candidateEnds.append(candidates.count)
        }
        graph.coordinates.withUnsafeBufferPointer { points in
            for candidate in candidates {
                sink &+= UInt32(truncatingIfNeeded: points[Int(candidate.segment)].latitude.bitPattern)
            }
        }
        var segments: [Int] = []
        segments.reserveCapacity(coordinates.count)
        for (i, coordinate) in coordinates.enumerated() {
            let range = (i == 0 ? 0 : candidateEnds[i - 1])..<candidateEnds[i]
            segments.append(coordinate.isValid ? refine(planar(coordinate), candidates[range]) : -1)
        }
        return finishAll(coordinates, segments, sink: sink)
    }

    /// The previous round's touching passes of `snap(_:)` over a list (`refinesAfterWalk` off): each point's cell,
    /// the offsets of its row and the rows either side, then the entries of those rows' three cells.
    private func touchThreeRows(_ coordinates: [Coordinate]) -> UInt32 {
        var sink: UInt32 = 0
        let cells = coordinates.map { coordinate -> Int in
            guard coordinate.isValid else { return -1 }
            let p = planar(coordinate)
            let cx = Int(min(max((p.x / cellMeters).rounded(.down), -1e9), 1e9))
            let cy = Int(min(max((p.y / cellMeters).rounded(.down), -1e9), 1e9))
            guard cx >= 0 && cx < columns && cy >= 0 && cy < rows else { return -1 }
            return cy * columns + cx
        }
        let cellCount = columns * rows
        do {
            let first = cellFirst
            for cell in cells where cell >= 0 {
                sink &+= first[cell]
                if cell >= columns { sink &+= first[cell - columns] }
                if cell + columns < cellCount { sink &+= first[cell + columns] }
            }
            do {
                let entries = cellEntries
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
        return sink
    }

    /// The last passes of `snap(_:)` over a list: each segment's piece touched, then the pieces' coordinate
    /// ranges, then every point finished.
    private func finishAll(_ coordinates: [Coordinate], _ segments: [Int], sink: UInt32) -> [SnappedPoint?] {
        var sink = sink
        for s in segments where s >= 0 {
            sink &+= segmentPieces[s] &+ UInt32(truncatingIfNeeded: metersAlongPiece[s].bitPattern)
        }
        for s in segments where s >= 0 {
            let piece = Int(segmentPieces[s])
            sink &+= graph.pieceFirstCoordinate[piece] &+ graph.pieceFirstCoordinate[piece + 1]
        }
        if refinesAfterWalk {
            // The piece's whole length (`finish` divides by it).
            for s in segments where s >= 0 {
                let last = Int(graph.pieceFirstCoordinate[Int(segmentPieces[s]) + 1]) - 1
                sink &+= UInt32(truncatingIfNeeded: metersAlongPiece[max(last, 0)].bitPattern)
            }
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
                let squared = e.squaredDistance(to: q)
                guard squared <= refineBelow else { continue }
                let s = Int(e.segment)
                let exact = exactSquaredDistance(p, segment: s)
                if exact < bestSquared || (exact == bestSquared && s < bestSegment) {
                    bestSquared = exact
                    bestSegment = s
                    let reach = Float(exact.squareRoot()) + slack
                    refineBelow = reach * reach
                }
            }
        }
        walkCells(around: p, done: { margin in margin > 0 && bestSquared < margin * margin }, visit: consider)
        return bestSegment
    }

    /// Visits the cells around `p`: its own, then a rectangle grown one row or column at a time on the side nearest
    /// the point, until `done(margin)` says the best found is nearer than anything outside it (`margin`: metres from
    /// `p` to the rectangle's nearest side), the margin passes `maxDistanceMeters` or the grid is covered.
    @inline(__always)
    private func walkCells(around p: SIMD2<Double>, done: (Double) -> Bool, visit: (Int, Int, Int) -> Void) {
        let cx = Int(min(max((p.x / cellMeters).rounded(.down), -1e9), 1e9))
        let cy = Int(min(max((p.y / cellMeters).rounded(.down), -1e9), 1e9))
        var (x0, x1, y0, y1) = (cx, cx, cy, cy)
        if cx >= 0 && cx < columns && cy >= 0 && cy < rows { visit(cy * columns + cx, cx, cy) }
        while true {
            let west = p.x - Double(x0) * cellMeters
            let east = Double(x1 + 1) * cellMeters - p.x
            let south = p.y - Double(y0) * cellMeters
            let north = Double(y1 + 1) * cellMeters - p.y
            let margin = min(min(west, east), min(south, north))
            if margin > maxDistanceMeters { break }
            if done(margin) { break }
            if x0 <= 0 && y0 <= 0 && x1 >= columns - 1 && y1 >= rows - 1 { break }
            if margin == west {
                x0 -= 1
                if x0 >= 0 && x0 < columns {
                    for y in max(y0, 0)..<max(min(y1 + 1, rows), max(y0, 0)) { visit(y * columns + x0, x0, y) }
                }
            } else if margin == east {
                x1 += 1
                if x1 >= 0 && x1 < columns {
                    for y in max(y0, 0)..<max(min(y1 + 1, rows), max(y0, 0)) { visit(y * columns + x1, x1, y) }
                }
            } else if margin == south {
                y0 -= 1
                if y0 >= 0 && y0 < rows {
                    for x in max(x0, 0)..<max(min(x1 + 1, columns), max(x0, 0)) { visit(y0 * columns + x, x, y0) }
                }
            } else {
                y1 += 1
                if y1 >= 0 && y1 < rows {
                    for x in max(x0, 0)..<max(min(x1 + 1, columns), max(x0, 0)) { visit(y1 * columns + x, x, y1) }
                }
            }
        }
    }

    /// The first pass of `nearestSegment(to:)` for a batch: the cells are walked in Float only, and every segment
    /// within `slack` of the Float nearest is appended to `candidates` (none is measured in Double here, so no
    /// coordinate is read). The walk stops once the Float nearest plus `slack` is inside the margin, which the
    /// Double nearest then is too. `refine(_:_:)` picks the same segment `nearestSegment(to:)` does: both measure
    /// in Double every segment whose Float distance is within `slack` of the nearest (Float errors on cell-relative
    /// metres are far below it), and break ties by the lower index.
    private func nearestCandidates(to p: SIMD2<Double>, into candidates: inout [SnapCandidate]) {
        let slack: Float = 0.05
        let start = candidates.count
        var bestFloat = Float.infinity
        var keepBelow = Float.infinity
        walkCells(
            around: p, done: { margin in margin > 0 && Double(bestFloat.squareRoot() + slack) < margin },
            visit: { cell, x, y in
                let q = SIMD2<Float>(Float(p.x - Double(x) * cellMeters), Float(p.y - Double(y) * cellMeters))
                for k in Int(cellFirst[cell])..<Int(cellFirst[cell + 1]) {
                    let e = cellEntries[k]
                    let squared = e.squaredDistance(to: q)
                    guard squared <= keepBelow else { continue }
                    candidates.append(SnapCandidate(segment: e.segment, squared: squared))
                    if squared < bestFloat {
                        bestFloat = squared
                        let reach = squared.squareRoot() + slack
                        keepBelow = reach * reach
                    }
                }
            })
        // Keep only those within slack of the final nearest.
        var kept = start
        for k in start..<candidates.count where candidates[k].squared <= keepBelow {
            candidates[kept] = candidates[k]
            kept += 1
        }
        candidates.removeLast(candidates.count - kept)
    }

    /// The squared planar distance in metres from `p` to the segment starting at coordinate `segment`, in Double.
    @inline(__always)
    private func exactSquaredDistance(_ p: SIMD2<Double>, segment s: Int) -> Double {
        let a = projection.offsetMeters(of: graph.coordinates[s], from: origin)
        let b = projection.offsetMeters(of: graph.coordinates[s + 1], from: origin)
        return squaredDistance(p, SIMD2(a.x, a.y), SIMD2(b.x, b.y))
    }

    /// The Double-exact nearest of `candidates` to `p` (ties: the lower segment), or -1 when there are none.
    private func refine(_ p: SIMD2<Double>, _ candidates: ArraySlice<SnapCandidate>) -> Int {
        var bestSegment = -1
        var bestSquared = Double.infinity
        for candidate in candidates {
            let s = Int(candidate.segment)
            let exact = exactSquaredDistance(p, segment: s)
            if exact < bestSquared || (exact == bestSquared && s < bestSegment) {
                bestSquared = exact
                bestSegment = s
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
struct SnapEntry {
    var ax: Float
    var ay: Float
    var bx: Float
    var by: Float
    var segment: UInt32

    /// The squared planar distance in metres from `q` (relative to the same cell corner) to this segment, in Float.
    @inline(__always)
    func squaredDistance(to q: SIMD2<Float>) -> Float {
        let abx = bx - ax
        let aby = by - ay
        let apx = q.x - ax
        let apy = q.y - ay
        let lengthSquared = abx * abx + aby * aby
        var t = lengthSquared > 0 ? (apx * abx + apy * aby) / lengthSquared : 0
        t = min(1, max(0, t))
        let dx = apx - t * abx
        let dy = apy - t * aby
        return dx * dx + dy * dy
    }
}

/// A segment found by a batched snap's Float walk, with its Float squared distance.
private struct SnapCandidate {
    var segment: UInt32
    var squared: Float
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
