import CabGeo
import CabRouting

/// Road durations from many drivers to one pickup: the port dispatch ranks candidates with and the rider's live
/// ETA is computed with. Implemented on plain Dijkstra (`RoadETAEstimator`); the contraction hierarchy's
/// many-to-one query plugs in behind the same protocol.
public protocol PickupETAEstimator: Sendable {
    /// Milliseconds by road from each of `starts` to `end`, nil where off the map or unreachable.
    func durationsMilliseconds(from starts: [Coordinate], to end: Coordinate) -> [Int?]
}

/// `PickupETAEstimator` on the imported road graph: the contraction hierarchy's many-to-one query when the map has
/// a fast-routing index, else one backward Dijkstra per query (`DijkstraManyToOne`); one workspace per thread.
public final class RoadETAEstimator: PickupETAEstimator {
    private let routing: RoutingService
    private let snapper: Snapper
    private let pool: ScratchPool<DijkstraManyToOne>

    /// An estimator over `routing`'s graph and snapper.
    public init(routing: RoutingService) {
        self.routing = routing
        snapper = routing.snapper
        let prototype = DijkstraManyToOne(graph: routing.graph)  // copies share the reversed adjacency
        pool = ScratchPool { prototype }
    }

    /// Road milliseconds from each start to `end`; nil for points with no road nearby or no route.
    public func durationsMilliseconds(from starts: [Coordinate], to end: Coordinate) -> [Int?] {
        if routing.hasFastRouter {
            return (try? routing.durationsMilliseconds(from: starts, to: end)) ?? starts.map { _ in nil }
        }
        guard let target = try? snapper.snap(end) else { return starts.map { _ in nil } }
        var snapped: [SnappedPoint] = []
        var places: [Int?] = []
        for start in starts {
            if let s = try? snapper.snap(start) {
                places.append(snapped.count)
                snapped.append(s)
            } else {
                places.append(nil)
            }
        }
        let answers = pool.with { (query: inout DijkstraManyToOne) in query.durationsMilliseconds(from: snapped, to: target) }
        return places.map { $0.flatMap { answers[$0] } }
    }
}
