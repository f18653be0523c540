import CabGeo

/// A road network as a plain directed graph in flat arrays (compressed sparse rows), with turn restrictions
/// already baked in, so Dijkstra and contraction hierarchies run on it without special cases.
///
/// Representation:
/// - **Nodes** `0 ..< nodeCount` are junctions and way ends; intermediate OSM shape points are not nodes.
///   `nodeCoordinates[n]` is where a node is and `nodeOSMIDs[n]` the OSM node it comes from.
/// - **Edges** out of node `n` are `firstEdge[n] ..< firstEdge[n + 1]`. Edge `e` runs from `edgeSources[e]` to
///   `edgeTargets[e]` in `edgeDurationsMilliseconds[e]` milliseconds over `edgeDistancesDm[e]` decimetres. Parallel edges,
///   zero-length edges and loops occur.
/// - **Pieces**: each stretch of one way between two junctions is a piece `p`, with geometry
///   `coordinates[pieceFirstCoordinate[p] ..< pieceFirstCoordinate[p + 1]]` in way order and way
///   `pieceWayIDs[p]`. Edge `e` drives piece `edgePieces[e] >> 1`, against the way order when
///   `edgePieces[e] & 1 == 1`; its geometry is that range (read backwards then). The edges that drive piece `p`
///   are `pieceEdges[pieceFirstEdge[p] ..< pieceFirstEdge[p + 1]]`. Snapping works on pieces, routing on edges.
/// - **Turns**: a junction a turn restriction passes through, those up to `RoadNetworkBuilder.uTurnGuardRings`
///   pieces from it, and a barrier are *turn-aware*: split into one graph
///   node per incoming edge ("the car is at X, having come along edge f"), each with only the outgoing edges
///   allowed after that arrival: no turn a `no_*` restriction bars, only the one an `only_*` restriction names, no
///   U-turn (back along the piece just driven) except at a dead end or a barrier, where that edge costs
///   `TravelProfile.uTurnPenaltyMilliseconds` more. Via-way restrictions add a node per junction along the via ways
///   for a car that came along the from way and followed the chain so far. Copies share a coordinate and an OSM
///   id, and a piece through such a junction is driven by several parallel edges. Maps without restrictions or
///   barriers are not split. On maps of up to `RoadNetworkBuilder.turnCostJunctionLimit` junctions every junction
///   is turn-aware and turns cost by their angle: each edge's duration includes the turn onto it at its tail,
///   kept apart in `edgeTurnsMilliseconds` (`TurnCostModel`). See docs/turns.md.
/// - **Component**: `nodeInLargestComponent[n]` marks the largest strongly connected component; `Snapper` only
///   snaps onto pieces whose edges lie in it.
/// - `sourceFingerprint` identifies the map the graph was built from (see `MapFingerprint`).
public struct RoadGraph: Sendable {
    /// First edge of each node, `nodeCount + 1` entries.
    public internal(set) var firstEdge: [UInt32]
    /// Tail node of each edge.
    public internal(set) var edgeSources: [UInt32]
    /// Head node of each edge.
    public internal(set) var edgeTargets: [UInt32]
    /// Travel time of each edge in milliseconds.
    public internal(set) var edgeDurationsMilliseconds: [UInt32]
    /// Length of each edge in decimetres.
    public internal(set) var edgeDistancesDm: [UInt32]
    /// Piece of each edge, shifted left once; the low bit is set when the edge runs against the way order.
    public internal(set) var edgePieces: [UInt32]
    /// Where each node is.
    public internal(set) var nodeCoordinates: [Coordinate]
    /// The OSM node each graph node comes from (copies of a split via node share it).
    public internal(set) var nodeOSMIDs: [Int64]
    /// True for the nodes of the largest strongly connected component.
    public internal(set) var nodeInLargestComponent: [Bool]
    /// First coordinate of each piece, `pieceCount + 1` entries.
    public internal(set) var pieceFirstCoordinate: [UInt32]
    /// The OSM way of each piece.
    public internal(set) var pieceWayIDs: [Int64]
    /// First entry of each piece in `pieceEdges`, `pieceCount + 1` entries.
    public internal(set) var pieceFirstEdge: [UInt32]
    /// The edges driving each piece, grouped by piece.
    public internal(set) var pieceEdges: [UInt32]
    /// Every piece's geometry, back to back.
    public internal(set) var coordinates: [Coordinate]
    /// A fingerprint of the source map (0 when unknown).
    public internal(set) var sourceFingerprint: UInt64
    /// The part of each edge's duration spent turning onto it at its tail (a turn's cost by its angle, a dead
    /// end's U-turn penalty); empty for a graph without turn costs (`RoadNetworkBuilder.turnCostJunctionLimit`).
    /// Route seeds read it: a route starting part-way along a piece makes no turn onto it, one ending part-way
    /// along makes the turn of the edge it arrives by (`forEachTargetSeed`).
    public internal(set) var edgeTurnsMilliseconds: [UInt32] = []
    /// The snapper index stored in the file this graph was loaded from (nil for a graph built in memory).
    var storedSnapperGrid: SnapperGrid? = nil
    /// `contractionFingerprint` as stored in the file this graph was loaded from.
    var storedContractionFingerprint: UInt64? = nil
    /// What building a route reads of each edge, one record per edge (`indexRouteEdges()`); nil until indexed (a
    /// graph made by hand in a test), and then routes read the arrays above.
    var routeEdges: ContractionBuffer<RouteEdge>? = nil

    /// How many nodes there are.
    public var nodeCount: Int { firstEdge.count - 1 }
    /// How many edges there are.
    public var edgeCount: Int { edgeTargets.count }
    /// How many pieces there are.
    public var pieceCount: Int { pieceFirstCoordinate.count - 1 }
    /// How many nodes the largest strongly connected component holds.
    public var largestComponentSize: Int { nodeInLargestComponent.reduce(0) { $0 + ($1 ? 1 : 0) } }

    /// The edges leaving `node`.
    @inline(__always)
    public func edges(from node: Int) -> Range<Int> { Int(firstEdge[node])..<Int(firstEdge[node + 1]) }

    /// The tail of `edge`.
    @inline(__always)
    public func edgeSource(_ edge: Int) -> Int { Int(edgeSources[edge]) }

    /// The head of `edge`.
    @inline(__always)
    public func edgeTarget(_ edge: Int) -> Int { Int(edgeTargets[edge]) }

    /// The piece `edge` drives.
    @inline(__always)
    public func piece(ofEdge edge: Int) -> Int { Int(edgePieces[edge] >> 1) }

    /// True when `edge` drives its piece against the way order.
    @inline(__always)
    public func edgeRunsBackwards(_ edge: Int) -> Bool { edgePieces[edge] & 1 == 1 }

    /// The edges driving `piece`, in either direction.
    public func edges(ofPiece piece: Int) -> LazyMapSequence<ArraySlice<UInt32>, Int> {
        pieceEdges[Int(pieceFirstEdge[piece])..<Int(pieceFirstEdge[piece + 1])].lazy.map { Int($0) }
    }

    /// The indices into `coordinates` of `piece`'s geometry, in way order.
    public func coordinateRange(ofPiece piece: Int) -> Range<Int> {
        Int(pieceFirstCoordinate[piece])..<Int(pieceFirstCoordinate[piece + 1])
    }

    /// The length of `piece` in metres (as its edges count it).
    public func pieceLengthMeters(_ piece: Int) -> Double {
        let range = pieceFirstEdge[piece]..<pieceFirstEdge[piece + 1]
        guard let edge = range.first else { return 0 }
        return Double(edgeDistancesDm[Int(pieceEdges[Int(edge)])]) / 10
    }

    /// The geometry of `edge` in driving order.
    public func geometry(ofEdge edge: Int) -> [Coordinate] {
        let points = coordinates[coordinateRange(ofPiece: piece(ofEdge: edge))]
        return edgeRunsBackwards(edge) ? points.reversed() : Array(points)
    }

    /// The positions of the nodes in the largest strongly connected component: where a simulated rider or
    /// driver can be put so that every other such point is reachable by road.
    /// - Complexity: O(nodes).
    public var routableNodeCoordinates: [Coordinate] {
        nodeCoordinates.indices.filter { nodeInLargestComponent[$0] }.map { nodeCoordinates[$0] }
    }

    /// True when `piece` has an edge inside the largest strongly connected component.
    public func pieceIsInLargestComponent(_ piece: Int) -> Bool {
        edges(ofPiece: piece).contains { edge in
            nodeInLargestComponent[edgeSource(edge)] && nodeInLargestComponent[edgeTarget(edge)]
        }
    }
}

/// What building a route reads of one edge, in 16 bytes (four to a cache line): its piece's coordinates, its
/// direction, duration and length. A route across a metro has hundreds of edges, each somewhere random in memory;
/// read from `RoadGraph`'s arrays each edge costs four cache misses (the edge's piece, duration and length, then
/// the piece's first coordinate), from these records one.
struct RouteEdge: BitwiseCopyable {
    /// The index in `RoadGraph.coordinates` of the piece's first coordinate (in way order).
    var firstCoordinate: UInt32
    /// The piece's coordinate count shifted left once, with the low bit set when the edge runs against the way.
    var countAndDirection: UInt32
    var durationMilliseconds: UInt32
    var distanceDm: UInt32

    /// The indices into `RoadGraph.coordinates` of the piece's geometry, in way order.
    @inline(__always) var coordinateRange: Range<Int> {
        Int(firstCoordinate)..<Int(firstCoordinate) + Int(countAndDirection >> 1)
    }

    /// True when the edge drives its piece against the way order.
    @inline(__always) var runsBackwards: Bool { countAndDirection & 1 == 1 }
}

extension RoadGraph {
    /// Builds `routeEdges` from the edge and piece arrays; the graph's arrays must not change afterwards (they
    /// do not, once a graph is built or loaded).
    /// - Complexity: O(edges), about 10 ms per million edges; 16 bytes per edge.
    mutating func indexRouteEdges() {
        let records = ContractionBuffer<RouteEdge>(uninitializedCount: edgeCount)
        for edge in 0..<edgeCount { records[edge] = routeEdge(fromArrays: edge) }
        routeEdges = records
    }

    /// `edge`'s route record read from the graph's arrays.
    @inline(__always)
    func routeEdge(fromArrays edge: Int) -> RouteEdge {
        let piece = Int(edgePieces[edge] >> 1)
        let first = pieceFirstCoordinate[piece]
        let count = pieceFirstCoordinate[piece + 1] - first
        precondition(count < 1 << 31, "a piece of over 2^31 coordinates")
        return RouteEdge(
            firstCoordinate: first, countAndDirection: count << 1 | (edgePieces[edge] & 1),
            durationMilliseconds: edgeDurationsMilliseconds[edge], distanceDm: edgeDistancesDm[edge])
    }
}
