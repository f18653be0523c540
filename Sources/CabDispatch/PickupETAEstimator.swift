import CabGeo
import CabRouting

/// Road durations from many drivers to one pickup: the port dispatch ranks candidates with and the rider's live
/// ETA is computed with. Implemented on plain Dijkstra (`RoadETAEstimator`); the contraction hierarchy's
/// many-to-one query plugs in behind the same protocol.
public protocol PickupETAEstimator: Sendable {
    /// Milliseconds by road from each of `starts` to `end`, nil where off the map or unreachable.
    func durationsMilliseconds(from starts: [Coordinate], to end: Coordinate) -> [Int?]
}

/// `PickupETAEstimator` on the imported road graph (`RoutingService.durationsMilliseconds`): the contraction
/// hierarchy's many-to-one query when the map has a fast-routing index, else one backward Dijkstra per query.
public final class RoadETAEstimator: PickupETAEstimator {
    private let routing: RoutingService

    /// An estimator over `routing`'s graph and snapper.
    public init(routing: RoutingService) {
        self.routing = routing
    }

    /// Road milliseconds from each start to `end`; nil for points with no road nearby or no route.
    public func durationsMilliseconds(from starts: [Coordinate], to end: Coordinate) -> [Int?] {
        (try? routing.durationsMilliseconds(from: starts, to: end)) ?? starts.map { _ in nil }
    }
}
