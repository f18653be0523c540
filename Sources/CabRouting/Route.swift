import CabGeo

/// A road route: how far, how long, which way.
public struct Route: Sendable, Hashable {
    /// Length along the road in metres.
    public var distanceMeters: Double
    /// Travel time in milliseconds (the exact figure engines are compared on).
    public var durationMilliseconds: Int
    /// The path from the snapped start to the snapped end (use `Polyline` or `GeoJSONLineString` to encode it).
    public var geometry: [Coordinate]

    /// Travel time in seconds.
    public var durationSeconds: Double { Double(durationMilliseconds) / 1000 }

    /// Creates a route.
    public init(distanceMeters: Double, durationMilliseconds: Int, geometry: [Coordinate]) {
        self.distanceMeters = distanceMeters
        self.durationMilliseconds = durationMilliseconds
        self.geometry = geometry
    }
}

extension RoadGraph {
    /// The route that leaves `endpoints.start` through `source`, drives `edges` (a path in this graph from
    /// `source.node` to `target.node`) and arrives at `endpoints.end` through `target`. Engines that find the
    /// edges their own way (a contraction hierarchy after unpacking) build their `Route` with this.
    /// - Complexity: O(geometry length).
    public func route(
        _ endpoints: RouteEndpoints, source: RouteSeed, edges: [Int], target: RouteSeed
    ) -> Route {
        route(endpoints, source: source, edges: edges, target: target, readsRecords: true)
    }

    /// As `route(_:source:edges:target:)`, reading each edge's `routeEdges` record when `readsRecords` (and the
    /// graph has them), else its piece, duration and length from the graph's arrays as before the ninth metro
    /// round (the benchmark's same-run comparison). The same route either way.
    func route(
        _ endpoints: RouteEndpoints, source: RouteSeed, edges: [Int], target: RouteSeed, readsRecords: Bool
    ) -> Route {
        let records = readsRecords ? routeEdges?.base : nil
        @inline(__always) func record(_ edge: Int) -> RouteEdge {
            if let records { return records[edge] }
            return routeEdge(fromArrays: edge)
        }
        var duration = source.costMilliseconds + target.costMilliseconds
        var distanceDm = 0
        var line = GeometryBuilder()
        line.append(endpoints.start.coordinate)
        if !source.atJunction {
            line.append(contentsOf: partialPiece(endpoints.start, reversed: source.isReversed, leaving: true))
        }
        // The edges' records, read first in a pass of independent loads (their misses overlap), then again below
        // from the cache.
        var shapePoints = 0
        for edge in edges { shapePoints += record(edge).coordinateRange.count }
        let end = target.atJunction ? [] : partialPiece(endpoints.end, reversed: target.isReversed, leaving: false)
        // The edges' shape points straight from the shared array into the line's storage (no array per edge, no
        // capacity check per point: routes across a metro have hundreds of edges and ~700 points), dropping a
        // point equal to the one before it as `GeometryBuilder` does.
        let prefix = line.points
        let before = prefix.count
        line.points = [Coordinate](unsafeUninitializedCapacity: before + shapePoints + end.count + 1) { buffer, count in
            guard let out = buffer.baseAddress else { return }
            prefix.withUnsafeBufferPointer { start in
                if let first = start.baseAddress { out.initialize(from: first, count: before) }
            }
            count = before
            coordinates.withUnsafeBufferPointer { shapes in
                for edge in edges {
                    let edge = record(edge)
                    duration += Int(edge.durationMilliseconds)
                    distanceDm += Int(edge.distanceDm)
                    let range = edge.coordinateRange
                    if edge.runsBackwards {
                        for i in range.reversed() where count == 0 || out[count - 1] != shapes[i] {
                            (out + count).initialize(to: shapes[i])
                            count += 1
                        }
                    } else {
                        for i in range where count == 0 || out[count - 1] != shapes[i] {
                            (out + count).initialize(to: shapes[i])
                            count += 1
                        }
                    }
                }
            }
        }
        line.append(contentsOf: end)
        line.append(endpoints.end.coordinate)
        return Route(
            distanceMeters: source.distanceMeters + Double(distanceDm) / 10 + target.distanceMeters,
            durationMilliseconds: duration, geometry: line.points)
    }

    /// The route along the single piece both endpoints share (`endpoints.direct`).
    public func directRoute(_ endpoints: RouteEndpoints, leg: RouteSeed) -> Route {
        let range = coordinateRange(ofPiece: endpoints.start.piece)
        var line = GeometryBuilder()
        line.append(endpoints.start.coordinate)
        let a = endpoints.start.segment
        let b = endpoints.end.segment
        if leg.isReversed {
            if a > b { for i in stride(from: a, to: b, by: -1) { line.append(coordinates[range.lowerBound + i]) } }
        } else {
            if b > a { for i in (a + 1)...b { line.append(coordinates[range.lowerBound + i]) } }
        }
        line.append(endpoints.end.coordinate)
        return Route(
            distanceMeters: leg.distanceMeters, durationMilliseconds: leg.costMilliseconds, geometry: line.points)
    }

    /// The shape points between a snapped point and the end of its piece it drives to (`leaving`) or from.
    private func partialPiece(_ point: SnappedPoint, reversed: Bool, leaving: Bool) -> [Coordinate] {
        let range = coordinateRange(ofPiece: point.piece)
        let s = point.segment
        // Coordinates after the point in way order are s+1 ..< count; before it, 0 ... s.
        let after = coordinates[(range.lowerBound + s + 1)..<range.upperBound]
        let before = coordinates[range.lowerBound...(range.lowerBound + s)]
        switch (leaving, reversed) {
        case (true, false): return Array(after)
        case (true, true): return before.reversed()
        case (false, false): return Array(before)
        case (false, true): return after.reversed()
        }
    }
}

/// A line that skips a point equal to the one before it.
struct GeometryBuilder {
    var points: [Coordinate] = []

    mutating func append(_ point: Coordinate) {
        if points.last != point { points.append(point) }
    }

    mutating func append(contentsOf more: some Sequence<Coordinate>) {
        for p in more { append(p) }
    }
}
