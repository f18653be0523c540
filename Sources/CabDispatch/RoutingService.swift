import CabGeo
import CabRouting

/// Roads and routes for the API: the graph, the snapper, and pools of routers (one per worker thread in use):
/// the fast router (contraction hierarchy + hub labels) answers; plain Dijkstra stays as the reference.
public final class RoutingService: Sendable {
    /// The road graph.
    public let graph: RoadGraph
    /// Snaps coordinates onto roads of the largest strongly connected component.
    public let snapper: Snapper
    private let fast: ScratchPool<FastRouterBox>?
    private let dijkstra: ScratchPool<DijkstraRouter>
    /// Backward Dijkstra for many-to-one durations, only on a map without a fast-routing index.
    private let manyToOne: ScratchPool<DijkstraManyToOne>?

    /// A service over `graph`, answering with `index` when given (else Dijkstra).
    public init(graph: RoadGraph, index: FastRouterIndex?, maxSnapDistanceMeters: Double = 1000) {
        self.graph = graph
        snapper = Snapper(graph: graph, maxDistanceMeters: maxSnapDistanceMeters)
        dijkstra = ScratchPool { DijkstraRouter(graph: graph) }
        fast = index.map { index in ScratchPool { FastRouterBox(FastRouter(index: index, graph: graph)) } }
        if index == nil {
            let prototype = DijkstraManyToOne(graph: graph)  // copies share the reversed adjacency
            manyToOne = ScratchPool { prototype }
        } else {
            manyToOne = nil
        }
    }

    /// True when the fast router (contraction hierarchy) answers.
    public var hasFastRouter: Bool { fast != nil }

    /// The route by road from `start` to `end`; `reference` forces plain Dijkstra.
    public func route(from start: Coordinate, to end: Coordinate, reference: Bool = false) throws(RoutingError)
        -> RoutePlan
    {
        let endpoints = try snapper.endpoints(from: start, to: end)
        let route: Route
        if let fast, !reference {
            route = try fast.with { (box: inout FastRouterBox) throws(RoutingError) in try box.router.route(endpoints) }
        } else {
            route = try dijkstra.with { (router: inout DijkstraRouter) throws(RoutingError) in
                try router.route(endpoints)
            }
        }
        return RoutePlan(start: endpoints.start.coordinate, end: endpoints.end.coordinate, route: route)
    }

    /// Travel times in milliseconds from each of `starts` (drivers) to `end` (a pickup), nil where a start is off
    /// the road network or cannot reach it. One many-to-one query.
    public func durationsMilliseconds(from starts: [Coordinate], to end: Coordinate) throws(RoutingError) -> [Int?] {
        if let fast {
            return try fast.with { (box: inout FastRouterBox) throws(RoutingError) in
                try box.router.durationsMilliseconds(from: starts, to: end, snappingWith: snapper)
            }
        }
        let target = try snapper.snap(end)
        var snapped: [SnappedPoint] = []
        var places: [Int?] = []  // where each start's answer is, nil for a start off the road network
        for start in starts {
            if let s = try? snapper.snap(start) {
                places.append(snapped.count)
                snapped.append(s)
            } else {
                places.append(nil)
            }
        }
        guard let manyToOne else { preconditionFailure("a service without a fast router has a many-to-one pool") }
        let answers = manyToOne.with { (query: inout DijkstraManyToOne) in
            query.durationsMilliseconds(from: snapped, to: target)
        }
        return places.map { $0.flatMap { answers[$0] } }
    }

    /// Durations (ms) and distances (m) between every source and destination; nil where unroutable.
    public func matrix(from sources: [Coordinate], to destinations: [Coordinate]) throws(RoutingError)
        -> [[(durationMilliseconds: Int, distanceMeters: Double)?]]
    {
        let s = try sources.map { (c: Coordinate) throws(RoutingError) in try snapper.snap(c) }
        let d = try destinations.map { (c: Coordinate) throws(RoutingError) in try snapper.snap(c) }
        if let fast {
            let cells = fast.with { $0.router.matrix(from: s, to: d) }
            return cells.map { row in row.map { $0.map { (Int($0.durationMilliseconds), $0.lengthMeters) } } }
        }
        return dijkstra.with { router in
            s.map { a in
                d.map { b in
                    (try? router.route(RouteEndpoints(start: a, end: b, in: graph))).map {
                        ($0.durationMilliseconds, $0.distanceMeters)
                    }
                }
            }
        }
    }
}

/// `FastRouter` holds scratch memory and is used by one thread at a time, which `ScratchPool` guarantees.
/// `@unchecked Sendable`: only ever touched by the pool's current holder.
final class FastRouterBox: @unchecked Sendable {
    let router: FastRouter
    init(_ router: FastRouter) { self.router = router }
}

/// A route with the points on the road it starts and ends at.
public struct RoutePlan: Sendable, Hashable {
    /// Where the start snapped to.
    public var start: Coordinate
    /// Where the end snapped to.
    public var end: Coordinate
    /// The route.
    public var route: Route
}
