import CabGeo
import CabRouting

/// Roads and routes for the API: the graph, the snapper and a pool of routers (one per worker thread in use).
public final class RoutingService: Sendable {
    /// The road graph.
    public let graph: RoadGraph
    /// Snaps coordinates onto roads of the largest strongly connected component.
    public let snapper: Snapper
    private let dijkstra: ScratchPool<DijkstraRouter>

    /// A service over `graph`.
    public init(graph: RoadGraph, maxSnapDistanceMeters: Double = 1000) {
        self.graph = graph
        snapper = Snapper(graph: graph, maxDistanceMeters: maxSnapDistanceMeters)
        dijkstra = ScratchPool { DijkstraRouter(graph: graph) }
    }

    /// The route by road from `start` to `end`.
    public func route(from start: Coordinate, to end: Coordinate) throws(RoutingError) -> RoutePlan {
        let endpoints = try snapper.endpoints(from: start, to: end)
        let route = try dijkstra.with { (router: inout DijkstraRouter) throws(RoutingError) in try router.route(endpoints) }
        return RoutePlan(start: endpoints.start.coordinate, end: endpoints.end.coordinate, route: route)
    }
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
