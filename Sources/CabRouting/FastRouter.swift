import CabGeo

/// A route found by `FastRouter`.
public struct FastRoute: Sendable, Equatable {
    /// Travel time in milliseconds, including the seeds' partial edges.
    public var durationMilliseconds: UInt32
    /// Length in metres, including the seeds' partial edges.
    public var lengthMeters: Double
    /// The original edges driven, in order, between the chosen source seed's node and target seed's node.
    public var edges: [Int]
    /// Index of the source seed the route starts from.
    public var sourceSeed: Int
    /// Index of the target seed the route ends at.
    public var targetSeed: Int
    /// The nodes' coordinates along the route (empty when the router has no coordinates).
    public var geometry: [Coordinate]
}

/// A duration and the length of that route, as matrices and many-to-one queries give them.
public struct FastDuration: Sendable, Hashable {
    /// Travel time in milliseconds.
    public var durationMilliseconds: UInt32
    /// Length in metres.
    public var lengthMeters: Double
}

/// Fast shortest-path queries on a `FastRouterIndex`: point-to-point with path and geometry, many-to-one (all
/// candidate drivers to one pickup), one-to-many, and matrices. With hub labels, durations and paths come from
/// label scans (`UpperLabelQuery`, which climbs to the labels when they cover the upper hierarchy only), otherwise
/// from the contraction hierarchy's two-sided search; paths are unpacked from the hierarchy's arcs either way.
///
/// Each endpoint is a list of `ContractionSeed`s (a snapped point starts from both ends of its edge).
/// Holds scratch memory sized to the graph: not `Sendable`; make one per thread (it is cheap next to the index).
public final class FastRouter {
    /// The preprocessed data.
    public let index: FastRouterIndex
    private let nodeCoordinates: [Coordinate]
    /// The road graph, for the road-level queries (`FastRouter+RoadGraph`).
    let roadGraph: RoadGraph?
    /// The two-sided hierarchy search, made on first use (only indexes without labels need it).
    private lazy var contraction = ContractionQuery(hierarchy: index.hierarchy)
    package let labelQuery: UpperLabelQuery?
    /// Reused seed arrays for the road-level queries.
    var sourceScratch: [ContractionSeed] = []
    var targetScratch: [ContractionSeed] = []
    /// Reused scratch of the batched many-to-one (`FastRouter+RoadGraph`): the points, their seeds one list after
    /// another with each list's end.
    var batchPoints: [SnappedPoint?] = []
    var batchSeeds: [ContractionSeed] = []
    var batchSeedEnds: [Int] = []

    /// A router over `index`; `nodeCoordinates` (one per graph node, or empty) give routes their geometry.
    public convenience init(index: FastRouterIndex, nodeCoordinates: [Coordinate] = []) {
        self.init(index: index, nodeCoordinates: nodeCoordinates, roadGraph: nil)
    }

    init(index: FastRouterIndex, nodeCoordinates: [Coordinate], roadGraph: RoadGraph?) {
        precondition(nodeCoordinates.isEmpty || nodeCoordinates.count == index.nodeCount, "one coordinate per node")
        self.index = index
        self.nodeCoordinates = nodeCoordinates
        self.roadGraph = roadGraph
        labelQuery = index.labels.map { UpperLabelQuery(hierarchy: index.hierarchy, labels: $0) }
    }

    /// The shortest duration between two endpoints, or nil when the target cannot be reached.
    /// - Complexity: one label merge per seed pair (or two upward searches without labels).
    public func duration(from source: [ContractionSeed], to target: [ContractionSeed]) -> FastDuration? {
        if let labels = index.labels, labels.coversEveryNode {
            let (d, length) = labels.query(from: source, to: target)
            return d == .max ? nil : FastDuration(durationMilliseconds: d, lengthMeters: Double(length))
        }
        if let labelQuery { return Self.optional(labelQuery.durationWithoutPath(from: source, to: target)) }
        let meeting = contraction.run(from: source, to: target)
        guard meeting.meet >= 0 else { return nil }
        let path = contraction.path(of: meeting, sources: source, targets: target)
        return FastDuration(durationMilliseconds: meeting.durationMilliseconds, lengthMeters: path.lengthMeters)
    }

    /// The shortest route with its edges and geometry, or nil when the target cannot be reached.
    /// - Complexity: two upward searches plus the length of the unpacked path.
    /// - Complexity: with labels, two climbs, a label scan and the path's arcs; otherwise two upward searches;
    ///   then the length of the unpacked path.
    public func route(from source: [ContractionSeed], to target: [ContractionSeed]) -> FastRoute? {
        let durationMilliseconds: UInt32
        let lengthMeters: Double
        let path: (edges: [Int32], sourceSeed: Int, targetSeed: Int)
        if let labelQuery {
            let answer = labelQuery.duration(from: source, to: target)
            guard answer.found else { return nil }
            path = labelQuery.path(of: answer)
            durationMilliseconds = answer.durationMilliseconds
            lengthMeters = Double(answer.lengthMeters)
        } else {
            let meeting = contraction.run(from: source, to: target)
            guard meeting.meet >= 0 else { return nil }
            let found = contraction.path(of: meeting, sources: source, targets: target)
            path = (found.edges, found.sourceSeed, found.targetSeed)
            durationMilliseconds = meeting.durationMilliseconds
            lengthMeters = found.lengthMeters
        }
        var geometry: [Coordinate] = []
        if !nodeCoordinates.isEmpty {
            geometry.reserveCapacity(path.edges.count + 1)
            geometry.append(nodeCoordinates[Int(source[path.sourceSeed].node)])
            for edge in path.edges { geometry.append(nodeCoordinates[Int(index.edgeTo[Int(edge)])]) }
        }
        return FastRoute(
            durationMilliseconds: durationMilliseconds, lengthMeters: lengthMeters, edges: path.edges.map(Int.init),
            sourceSeed: path.sourceSeed, targetSeed: path.targetSeed, geometry: geometry)
    }

    /// Durations from each source to one target (drivers to a pickup); nil where unreachable.
    /// - Complexity: with labels, one table fill plus O(label size) per source; otherwise one search per source.
    public func durations(from sources: [[ContractionSeed]], to target: [ContractionSeed]) -> [FastDuration?] {
        guard let labelQuery else { return sources.map { duration(from: $0, to: target) } }
        return labelQuery.durations(from: sources, to: target).map(Self.optional)
    }

    /// Durations from one source to each target; nil where unreachable.
    /// - Complexity: with labels, one table fill plus O(label size) per target; otherwise one search per target.
    public func durations(from source: [ContractionSeed], to targets: [[ContractionSeed]]) -> [FastDuration?] {
        guard let labelQuery else { return targets.map { duration(from: source, to: $0) } }
        return labelQuery.durations(from: source, to: targets).map(Self.optional)
    }

    /// The matrix of durations, `result[i][j]` from `sources[i]` to `destinations[j]`; nil where unreachable.
    /// - Complexity: one one-to-many query per source.
    public func matrix(from sources: [[ContractionSeed]], to destinations: [[ContractionSeed]]) -> [[FastDuration?]] {
        sources.map { durations(from: $0, to: destinations) }
    }

    func requireRoadGraph() -> RoadGraph {
        guard let roadGraph else { preconditionFailure("this FastRouter was made without a RoadGraph") }
        return roadGraph
    }

    private static func optional(_ answer: UpperLabelQuery.Answer) -> FastDuration? {
        answer.found
            ? FastDuration(durationMilliseconds: answer.durationMilliseconds, lengthMeters: Double(answer.lengthMeters))
            : nil
    }
}
