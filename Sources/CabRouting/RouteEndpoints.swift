/// Where a route query enters and leaves the graph: the contract every point-to-point engine shares.
///
/// A snapped point sits part-way along a piece (a stretch of road between two graph nodes). Leaving it means
/// driving the rest of the piece to one of the graph nodes at its ends: those are the `sources`, each with the
/// partial cost already paid. Arriving at it means reaching a node at one end of the piece and driving part of
/// it: those are the `targets`, each with the partial cost still to pay. When both points sit on the same piece
/// and the allowed direction runs from start to end, `direct` is the cost of driving straight there.
///
/// Any engine answers `min(direct, min over s, t of s.cost + shortest(s.node, t.node) + t.cost)`; plain
/// Dijkstra and the contraction hierarchy therefore agree to the millisecond when they agree on node-to-node
/// costs. Seeds never mention turn restrictions: those live in the graph (see `RoadGraph`).
public struct RouteEndpoints: Sendable, Hashable {
    /// Where the route starts, on the road.
    public let start: SnappedPoint
    /// Where the route ends, on the road.
    public let end: SnappedPoint
    /// The nodes the search starts from, each with the cost of reaching it from `start`.
    public let sources: [RouteSeed]
    /// The nodes the search may end at, each with the cost of reaching `end` from it.
    public let targets: [RouteSeed]
    /// The cost of driving from `start` to `end` along their shared piece, when that is allowed.
    public let direct: RouteSeed?

    /// The seeds for a query from `start` to `end` on `graph`.
    /// - Complexity: O(edges of the two pieces).
    public init(start: SnappedPoint, end: SnappedPoint, in graph: RoadGraph) {
        self.start = start
        self.end = end
        var sources: [RouteSeed] = []
        var targets: [RouteSeed] = []
        graph.forEachSourceSeed(of: start) { insertKeepingCheapest($0, into: &sources) }
        graph.forEachTargetSeed(of: end) { insertKeepingCheapest($0, into: &targets) }
        self.sources = sources
        self.targets = targets
        self.direct = graph.directSeed(from: start, to: end)
    }
}

extension RoadGraph {
    /// The time to drive `piece` end to end: its cheapest edge (an edge that turns back at a dead end also carries
    /// the U-turn penalty, which a point part-way along the piece never pays). Graphs with turn costs read each
    /// edge's own time instead (its duration less `edgeTurnsMilliseconds`).
    /// - Complexity: O(edges of the piece).
    @inline(__always)
    func pieceDurationMilliseconds(_ piece: Int) -> UInt32 {
        var best = UInt32.max
        for k in Int(pieceFirstEdge[piece])..<Int(pieceFirstEdge[piece + 1]) {
            best = min(best, edgeDurationsMilliseconds[Int(pieceEdges[k])])
        }
        return best
    }

    /// How close to a junction (metres along its piece) a point counts as standing on it (`forEachJunctionSeed`).
    static let junctionToleranceMeters = 0.5

    /// Calls `body` with a seed at every graph node of the junction `point` stands on (`length`: its piece's), at
    /// no cost and reached without driving any of the piece (`RouteSeed.atJunction`), when it stands on one
    /// (within `junctionToleranceMeters` of an end of its piece) and the graph has turn costs, so that the
    /// junction is split per arrival (see `TurnStates`): a car starting there may leave as if it had arrived along
    /// any road, and one ending there may arrive along any road, not only along the piece the point was snapped to
    /// among the several meeting there. Graphs without turn costs (a metro map) read nothing more: their seeds
    /// are as before (a benchmark's points sit on junctions, and the look-up cost 3 % of a metro many-to-one).
    /// A junction's graph nodes are numbered one after another (`GraphAssembler`), so they are the run of nodes
    /// around one of them with the same OSM node.
    /// - Complexity: O(edges of the piece + the junction's nodes), no allocation; nothing read when the point is
    ///   not at an end of its piece.
    @inline(__always)
    func forEachJunctionSeed(at point: SnappedPoint, length: Double, _ body: (RouteSeed) -> Void) {
        guard !edgeTurnsMilliseconds.isEmpty else { return }
        let atTail = point.fraction * length <= Self.junctionToleranceMeters
        let atHead = (1 - point.fraction) * length <= Self.junctionToleranceMeters
        guard atTail || atHead, pieceFirstEdge[point.piece] < pieceFirstEdge[point.piece + 1] else { return }
        let edge = Int(pieceEdges[Int(pieceFirstEdge[point.piece])])
        // The edge's end at the junction: its source when it leaves the junction, else its target.
        let leaves = atTail != edgeRunsBackwards(edge)
        let node = leaves ? edgeSource(edge) : edgeTarget(edge)
        let id = nodeOSMIDs[node]
        var first = node
        while first > 0, nodeOSMIDs[first - 1] == id { first -= 1 }
        var end = node + 1
        while end < nodeOSMIDs.count, nodeOSMIDs[end] == id { end += 1 }
        // Even a junction with one graph node: a piece's seeds are the nodes at its far ends, so a point at the
        // start of a one-way street would otherwise have to drive it first.
        for n in first..<end {
            body(RouteSeed(node: n, costMilliseconds: 0, distanceMeters: 0, isReversed: false, atJunction: true))
        }
    }

    /// The time to drive the whole of `edge`'s piece without turning onto it: on a graph with turn costs the
    /// edge's duration less its turn, else `cheapest` (`pieceDurationMilliseconds`, which such a caller reads once
    /// per piece; 0 is passed where turns cost).
    @inline(__always)
    func drivingMilliseconds(_ edge: Int, cheapest: UInt32) -> UInt32 {
        edgeTurnsMilliseconds.isEmpty ? cheapest : edgeDurationsMilliseconds[edge] - edgeTurnsMilliseconds[edge]
    }

    /// `pieceDurationMilliseconds(piece)` where seeds read it (graphs without turn costs), else 0 (unused).
    @inline(__always)
    func cheapestWithoutTurns(_ piece: Int) -> UInt32 {
        edgeTurnsMilliseconds.isEmpty ? pieceDurationMilliseconds(piece) : 0
    }

    /// Calls `body` with each seed leaving `point` (one per edge driving its piece, and one per graph node of a
    /// split junction the point stands on; a node may come twice).
    /// - Complexity: O(edges of the piece), no allocation.
    @inline(__always)
    func forEachSourceSeed(of point: SnappedPoint, _ body: (RouteSeed) -> Void) {
        let length = pieceLengthMeters(point.piece)
        forEachJunctionSeed(at: point, length: length, body)
        let cheapest = cheapestWithoutTurns(point.piece)
        for k in Int(pieceFirstEdge[point.piece])..<Int(pieceFirstEdge[point.piece + 1]) {
            let edge = Int(pieceEdges[k])
            let reversed = edgeRunsBackwards(edge)
            let share = reversed ? point.fraction : 1 - point.fraction
            // Leaving a point part-way along, the car makes no turn onto the piece.
            let drive = drivingMilliseconds(edge, cheapest: cheapest)
            body(
                RouteSeed(
                    node: edgeTarget(edge), costMilliseconds: partialCost(drive, share),
                    distanceMeters: share * length, isReversed: reversed))
        }
    }

    /// Calls `body` with each seed arriving at `point` (one per edge driving its piece, and one per graph node of
    /// a split junction the point stands on; a node may come twice).
    /// - Complexity: O(edges of the piece), no allocation.
    @inline(__always)
    func forEachTargetSeed(of point: SnappedPoint, _ body: (RouteSeed) -> Void) {
        let length = pieceLengthMeters(point.piece)
        forEachJunctionSeed(at: point, length: length, body)
        let cheapest = cheapestWithoutTurns(point.piece)
        for k in Int(pieceFirstEdge[point.piece])..<Int(pieceFirstEdge[point.piece + 1]) {
            let edge = Int(pieceEdges[k])
            let reversed = edgeRunsBackwards(edge)
            let share = reversed ? 1 - point.fraction : point.fraction
            // Arriving at a point part-way along, the car has made the turn of the edge it drives.
            let turn = edgeTurnsMilliseconds.isEmpty ? 0 : Int(edgeTurnsMilliseconds[edge])
            let drive = drivingMilliseconds(edge, cheapest: cheapest)
            body(
                RouteSeed(
                    node: edgeSource(edge), costMilliseconds: turn + partialCost(drive, share),
                    distanceMeters: share * length, isReversed: reversed))
        }
    }

    /// The cheapest leg driving straight from `start` to `end` along the piece they share, if any.
    func directSeed(from start: SnappedPoint, to end: SnappedPoint) -> RouteSeed? {
        guard start.piece == end.piece else { return nil }
        var direct: RouteSeed?
        let length = pieceLengthMeters(start.piece)
        let cheapest = cheapestWithoutTurns(start.piece)
        for edge in edges(ofPiece: start.piece) {
            let reversed = edgeRunsBackwards(edge)
            let ahead = reversed ? start.fraction - end.fraction : end.fraction - start.fraction
            guard ahead >= 0 else { continue }
            let drive = drivingMilliseconds(edge, cheapest: cheapest)
            let leg = RouteSeed(
                node: edgeTarget(edge), costMilliseconds: partialCost(drive, ahead),
                distanceMeters: ahead * length, isReversed: reversed)
            if direct.map({ leg.costMilliseconds < $0.costMilliseconds }) ?? true { direct = leg }
        }
        return direct
    }
}

/// One entry or exit of a route query: a graph node and the partial cost between it and the snapped point.
public struct RouteSeed: Sendable, Hashable {
    /// The graph node.
    public var node: Int
    /// Milliseconds between the snapped point and `node` (in the direction of travel).
    public var costMilliseconds: Int
    /// Metres between the snapped point and `node` along the road.
    public var distanceMeters: Double
    /// True when the car drives the piece against its stored (way) order.
    public var isReversed: Bool
    /// True when `node` is the junction the point stands on, reached without driving any of the piece.
    public var atJunction: Bool

    /// Creates a seed.
    public init(
        node: Int, costMilliseconds: Int, distanceMeters: Double, isReversed: Bool, atJunction: Bool = false
    ) {
        self.node = node
        self.costMilliseconds = costMilliseconds
        self.distanceMeters = distanceMeters
        self.isReversed = isReversed
        self.atJunction = atJunction
    }
}

/// The share of an edge's duration, rounded to the millisecond: the one rounding rule every engine uses.
@inline(__always)
func partialCost(_ durationMilliseconds: UInt32, _ share: Double) -> Int {
    Int((Double(durationMilliseconds) * min(1, max(0, share))).rounded())
}

/// Adds `seed`, or lowers the cost of the seed already at its node.
private func insertKeepingCheapest(_ seed: RouteSeed, into seeds: inout [RouteSeed]) {
    if let i = seeds.firstIndex(where: { $0.node == seed.node }) {
        if seed.costMilliseconds < seeds[i].costMilliseconds { seeds[i] = seed }
    } else {
        seeds.append(seed)
    }
}
