import CabGeo

/// A turn restriction resolved to base edges (see `PieceTable`): the car arrives along one of `arrivals`, drives
/// `via` (empty for a via node) and may then, or may then only, leave along `toWay`.
struct ResolvedRestriction {
    var arrivals: [Int]
    var via: [Int]
    var kind: TurnRestriction.Kind
    var toWay: Int64
}

/// Resolves restrictions against the pieces: which base edges they name, or why they cannot be used.
struct RestrictionResolver {
    enum Outcome {
        /// The restriction, on base edges.
        case applied(ResolvedRestriction)
        /// Its ways or node are not in the graph, do not meet, or cannot be driven in the restricted order.
        case ignored
        /// Its via ways do not form one chain in member order (unordered, disconnected, closed or ambiguous).
        case brokenChain
    }

    let pieces: PieceTable
    let lookup: NodeLookup
    /// The pieces of every way a restriction names, in way order (a clipped way may have gaps).
    let wayPieces: [Int64: Range<Int>]

    func resolve(_ restriction: TurnRestriction) -> Outcome {
        guard let from = wayPieces[restriction.fromWay], let to = wayPieces[restriction.toWay] else { return .ignored }
        switch restriction.via {
        case .node(let id):
            guard let v = lookup.index(of: id) else { return .ignored }
            return finish(restriction, from: from, start: v, via: [], end: v, to: to)
        case .ways(let ways):
            var chains: [Range<Int>] = []
            for way in ways {
                guard let range = wayPieces[way] else { return .ignored }
                guard let chain = contiguous(range) else { return .brokenChain }
                chains.append(chain)
            }
            // The first via way's end that the from way touches is where the chain starts.
            let first = chains[0]
            let ends = [Int(pieces.tails[first.lowerBound]), Int(pieces.heads[first.upperBound - 1])]
            let touching = ends.filter { touches(from, $0) }
            guard touching.count == 1 else { return .brokenChain }
            let start = touching[0]
            var node = start
            var via: [Int] = []
            for chain in chains {
                let tail = Int(pieces.tails[chain.lowerBound])
                let head = Int(pieces.heads[chain.upperBound - 1])
                guard tail != head else { return .brokenChain }
                if node == tail {
                    via += chain.map { $0 << 1 }
                    node = head
                } else if node == head {
                    via += chain.reversed().map { $0 << 1 | 1 }
                    node = tail
                } else {
                    return .brokenChain
                }
            }
            guard touches(to, node) else { return .brokenChain }
            guard via.allSatisfy(pieces.exists) else { return .ignored }
            return finish(restriction, from: from, start: start, via: via, end: node, to: to)
        }
    }

    private func finish(
        _ restriction: TurnRestriction, from: Range<Int>, start: Int, via: [Int], end: Int, to: Range<Int>
    ) -> Outcome {
        let arrivals = bases(of: from).filter { pieces.head($0) == start }
        guard !arrivals.isEmpty, bases(of: to).contains(where: { pieces.tail($0) == end }) else { return .ignored }
        return .applied(
            ResolvedRestriction(arrivals: arrivals, via: via, kind: restriction.kind, toWay: restriction.toWay))
    }

    /// The existing base edges of `pieces`.
    private func bases(of range: Range<Int>) -> [Int] {
        range.flatMap { [$0 << 1, $0 << 1 | 1] }.filter(pieces.exists)
    }

    /// True when one of the pieces starts or ends at `node`.
    private func touches(_ range: Range<Int>, _ node: Int) -> Bool {
        range.contains { Int(pieces.tails[$0]) == node || Int(pieces.heads[$0]) == node }
    }

    /// The range when its pieces follow on from each other without a gap.
    private func contiguous(_ range: Range<Int>) -> Range<Int>? {
        guard !range.isEmpty else { return nil }
        for p in range.dropLast() where pieces.heads[p] != pieces.tails[p + 1] { return nil }
        return range
    }
}

/// Which junctions know how the car arrived, and the rules that knowledge enforces.
///
/// A *turn-aware* junction is split into one graph node per incoming base edge (plus one entry node when no edge
/// leads in), so that turns out of it can depend on the arrival: restrictions through it, and no U-turn (leaving
/// along the piece just arrived on) unless the junction is a dead end for that arrival, where the U-turn costs
/// `TravelProfile.uTurnPenaltyMilliseconds`. Via-way restrictions add *chain states*: a copy of each node along
/// the via ways, reached only by a car that arrived along the from way and followed the chain so far. A state is
/// named by the base edges driven into it, longest first matched (`[f, e1, e2]`, else `[e2]`), so overlapping
/// restrictions combine.
///
/// Turn-aware are: every node a restriction passes through, and every node up to `guardRings` junctions from one,
/// joints (where only two pieces meet) passed without counting (their U-turn ban keeps a car from turning back just past a restricted junction and arriving there again along
/// another edge, which a node-based graph would otherwise allow). A node-based graph can only make a shortest
/// path turn back at a plain junction next to a split one, so with unlimited rings (the whole connected part of
/// the map) no route turns back anywhere but at a dead end; the default stops at two rings; see docs/turns.md.
struct TurnStates {
    struct Rule {
        var kind: TurnRestriction.Kind
        var toWay: Int64
    }

    private(set) var turnAware: [Bool]
    /// Outgoing base edges of each node (saturating at 255).
    private(set) var outDegree: [UInt8]
    /// Incoming base edges of every turn-aware junction.
    private(set) var incoming: [Int: [Int]] = [:]
    /// Rules at the end of each restriction's prefix (`[f]` for a via node, `[f, e1, ..., em]` for via ways).
    private var rules: [[Int]: [Rule]] = [:]
    /// The chain states (two base edges or more), grouped by the junction they sit at.
    private(set) var chainStates: [Int: [[Int]]] = [:]
    private var isChainState: Set<[Int]> = []
    private(set) var turnAwareCount = 0
    private let isBarrier: Set<Int>

    /// False for the baseline that allows U-turns everywhere.
    let refusesUTurns: Bool
    /// What turns cost by their angle; when set, every junction is turn-aware (an edge-based graph).
    let turnCosts: TurnCostModel?

    init(
        pieces: PieceTable, nodeCount: Int, restrictions: [ResolvedRestriction], barriers: [Int] = [],
        guardRings: Int, refusesUTurns: Bool = true, turnCosts: TurnCostModel? = nil
    ) {
        self.refusesUTurns = refusesUTurns
        self.turnCosts = turnCosts
        isBarrier = Set(barriers)
        turnAware = [Bool](repeating: false, count: nodeCount)
        if turnCosts != nil {
            // A turn's cost depends on the arrival at every junction: all are split (no ring is needed then).
            for p in 0..<pieces.count {
                turnAware[Int(pieces.tails[p])] = true
                turnAware[Int(pieces.heads[p])] = true
            }
        }
        outDegree = [UInt8](repeating: 0, count: nodeCount)
        let baseCount = pieces.count * 2
        for base in 0..<baseCount where pieces.exists(base) {
            let tail = pieces.tail(base)
            outDegree[tail] &+= outDegree[tail] < 255 ? 1 : 0
        }
        // A barrier knows the arrival (it sends the car back the way it came) but seeds no rings: turning back
        // there is allowed, so it offers no way round a ban.
        for n in barriers { turnAware[n] = true }
        defer {
            for base in 0..<baseCount where pieces.exists(base) && turnAware[pieces.head(base)] {
                incoming[pieces.head(base), default: []].append(base)
            }
            turnAwareCount = turnAware.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        guard !restrictions.isEmpty else { return }
        var frontier: [Int] = []
        var reached = [Bool](repeating: false, count: nodeCount)
        func mark(_ n: Int) {
            if !reached[n] {
                reached[n] = true
                turnAware[n] = true
                frontier.append(n)
            }
        }
        for r in restrictions {
            for f in r.arrivals {
                mark(pieces.head(f))
                var key = [f]
                for e in r.via {
                    key.append(e)
                    mark(pieces.head(e))
                    if isChainState.insert(key).inserted { chainStates[pieces.head(e), default: []].append(key) }
                }
                rules[key, default: []].append(Rule(kind: r.kind, toWay: r.toWay))
            }
        }
        // Grow the guard rings: neighbours along any piece, in either direction.
        if guardRings > 0 {
            var neighbours: [Int: [Int]] = [:]
            for p in 0..<pieces.count {
                let t = Int(pieces.tails[p])
                let h = Int(pieces.heads[p])
                neighbours[t, default: []].append(h)
                neighbours[h, default: []].append(t)
            }
            // A joint (a node where only two pieces meet: one way ends and the next begins) offers no turn, so
            // passing it costs no ring: the rings reach as many real
            // junctions whatever the ways are cut into. Streets are often a chain of short ways, and a U-turn at
            // a joint just past the last ring was the commonest way round a ban (docs/turns.md).
            var rings = 0
            while rings < guardRings, !frontier.isEmpty {
                rings += 1
                var ring = frontier
                frontier = []
                var i = 0
                while i < ring.count {
                    for m in neighbours[ring[i]] ?? [] where !reached[m] {
                        mark(m)
                        if neighbours[m]?.count == 2 { ring.append(m) }
                    }
                    i += 1
                }
            }
        }
    }

    var chainStateCount: Int { isChainState.count }

    /// True when a car in state `key` (the base edges it arrived along, empty for an entry node) at `node` may
    /// leave along `departure`, and the penalty that turn costs.
    func turn(from key: [Int], at node: Int, along departure: Int, pieces: PieceTable, penalty: UInt32) -> UInt32? {
        guard let arrival = key.last else { return 0 }
        var cost: UInt32 = 0
        let barrier = !isBarrier.isEmpty && isBarrier.contains(node)
        let uTurn = departure == arrival ^ 1
        if barrier, !uTurn { return nil }  // no way through a barrier, only back
        var paysForTurning = !uTurn
        if uTurn, refusesUTurns || barrier {
            // A U-turn, allowed only at a dead end or a barrier.
            guard outDegree[node] == 1 || barrier else { return nil }
            // Not between two dead ends (an isolated piece): seeds read a piece's cost off its cheapest edge.
            if outDegree[pieces.head(departure)] > 1 {
                cost = penalty
                paysForTurning = true
            }
        }
        let way = pieces.way(departure)
        for start in key.indices {
            guard let found = rules[Array(key[start...])] else { continue }
            var only: Bool? = nil
            for rule in found {
                switch rule.kind {
                case .no: if rule.toWay == way { return nil }
                case .only: only = (only ?? false) || rule.toWay == way
                }
            }
            if only == false { return nil }
        }
        if let turnCosts, paysForTurning { cost += turnCosts.cost(arrival: arrival, departure: departure, at: node) }
        return cost
    }

    /// The state a car in state `key` reaches by driving `departure`: the longest chain state it continues, else
    /// nil (the head's plain node, or its copy for `departure` when turn-aware).
    func chainState(after key: [Int], along departure: Int) -> [Int]? {
        guard !isChainState.isEmpty else { return nil }
        for start in key.indices {
            let next = Array(key[start...]) + [departure]
            if isChainState.contains(next) { return next }
        }
        return nil
    }
}

/// Numbers the graph nodes (splitting turn-aware junctions and adding chain states) and lays the edges out in
/// CSR order.
enum GraphAssembler {
    static func assemble(
        pieces: PieceTable, turns: TurnStates, nodeIDs: [Int64], coordinates: [Coordinate],
        uTurnPenaltyMilliseconds: UInt32
    ) -> (graph: RoadGraph, zoneNodes: [Bool]?) {
        let baseCount = pieces.count * 2
        var used = [Bool](repeating: false, count: nodeIDs.count)
        for p in 0..<pieces.count {
            used[Int(pieces.tails[p])] = true
            used[Int(pieces.heads[p])] = true
        }
        // Graph node of each plain junction (or the entry node of a turn-aware one nothing leads into), of each
        // incoming base edge of a turn-aware junction, and of each chain state.
        var nodeOf = [Int32](repeating: -1, count: nodeIDs.count)
        var copyOf = [Int32](repeating: -1, count: baseCount)
        var chainNode: [[Int]: Int32] = [:]
        var nodeCoordinates: [Coordinate] = []
        var nodeOSMIDs: [Int64] = []
        func addNode(_ n: Int) -> Int32 {
            nodeCoordinates.append(coordinates[n])
            nodeOSMIDs.append(nodeIDs[n])
            return Int32(nodeOSMIDs.count - 1)
        }
        for n in nodeIDs.indices where used[n] {
            if turns.turnAware[n] {
                let arrivals = turns.incoming[n] ?? []
                for base in arrivals { copyOf[base] = addNode(n) }
                if arrivals.isEmpty { nodeOf[n] = addNode(n) }
                for key in turns.chainStates[n] ?? [] { chainNode[key] = addNode(n) }
            } else {
                nodeOf[n] = addNode(n)
            }
        }
        func target(_ key: [Int], _ departure: Int) -> UInt32 {
            // Every chain state got its node above.
            if let next = turns.chainState(after: key, along: departure) { return UInt32(chainNode[next]!) }
            let copy = copyOf[departure]
            return UInt32(copy >= 0 ? copy : nodeOf[pieces.head(departure)])
        }
        // Edges as (source, target, base edge, penalty), then a counting sort by source.
        var sources: [UInt32] = []
        var targets: [UInt32] = []
        var bases: [UInt32] = []
        var penalties: [Int: UInt32] = [:]
        // Split junctions add edges beyond one per base edge; reserved space is not resident until written.
        sources.reserveCapacity(baseCount * 2)
        targets.reserveCapacity(baseCount * 2)
        bases.reserveCapacity(baseCount * 2)
        for base in 0..<baseCount where pieces.exists(base) {
            let tail = pieces.tail(base)
            guard turns.turnAware[tail] else {
                sources.append(UInt32(nodeOf[tail]))
                targets.append(target([], base))
                bases.append(UInt32(base))
                continue
            }
            var states: [(node: Int32, key: [Int])] = (turns.incoming[tail] ?? []).map { (copyOf[$0], [$0]) }
            if nodeOf[tail] >= 0 { states.append((nodeOf[tail], [])) }
            for key in turns.chainStates[tail] ?? [] { states.append((chainNode[key]!, key)) }  // added above
            for state in states {
                guard
                    let penalty = turns.turn(
                        from: state.key, at: tail, along: base, pieces: pieces, penalty: uTurnPenaltyMilliseconds)
                else { continue }
                if penalty > 0 { penalties[sources.count] = penalty }
                sources.append(UInt32(state.node))
                targets.append(target(state.key, base))
                bases.append(UInt32(base))
            }
        }
        let zoneNodes = DestinationZones.split(
            sources: &sources, targets: &targets, bases: &bases, penalties: &penalties,
            nodeCoordinates: &nodeCoordinates, nodeOSMIDs: &nodeOSMIDs, pieces: pieces)
        let nodeCount = nodeOSMIDs.count
        let edgeCount = sources.count
        var firstEdge = [UInt32](repeating: 0, count: nodeCount + 1)
        for s in sources { firstEdge[Int(s) + 1] += 1 }
        for n in 0..<nodeCount { firstEdge[n + 1] += firstEdge[n] }
        var next = firstEdge
        var order = [UInt32](repeating: 0, count: edgeCount)
        for (i, s) in sources.enumerated() {
            order[Int(next[Int(s)])] = UInt32(i)
            next[Int(s)] += 1
        }
        // Each temporary is dropped as soon as its permuted copy exists, to keep the peak low.
        let edgePieces = order.map { bases[Int($0)] }
        bases = []
        let edgeSources = order.map { sources[Int($0)] }
        sources = []
        let edgeTargets = order.map { targets[Int($0)] }
        targets = []
        var edgeDurations = edgePieces.map { pieces.durationMilliseconds(Int($0)) }
        var edgeTurns: [UInt32] = []
        if turns.turnCosts != nil { edgeTurns = [UInt32](repeating: 0, count: edgeCount) }
        if !penalties.isEmpty {
            for (e, i) in order.enumerated() {
                if let p = penalties[Int(i)] {
                    edgeDurations[e] += p
                    if !edgeTurns.isEmpty { edgeTurns[e] = p }
                }
            }
        }
        order = []
        // Edges of each piece, for snapping and seeds.
        var pieceFirstEdge = [UInt32](repeating: 0, count: pieces.count + 1)
        for b in edgePieces { pieceFirstEdge[Int(b >> 1) + 1] += 1 }
        for p in 0..<pieces.count { pieceFirstEdge[p + 1] += pieceFirstEdge[p] }
        var slot = pieceFirstEdge
        var pieceEdges = [UInt32](repeating: 0, count: edgeCount)
        for (e, b) in edgePieces.enumerated() {
            pieceEdges[Int(slot[Int(b >> 1)])] = UInt32(e)
            slot[Int(b >> 1)] += 1
        }
        // The arrays queries read at random go onto huge pages (`HugePages`; the graph is then final in size).
        var graph = RoadGraph(
            firstEdge: firstEdge.onHugePages(), edgeSources: edgeSources.onHugePages(),
            edgeTargets: edgeTargets.onHugePages(), edgeDurationsMilliseconds: edgeDurations.onHugePages(),
            edgeDistancesDm: edgePieces.map { pieces.distancesDm[Int($0 >> 1)] }.onHugePages(),
            edgePieces: edgePieces.onHugePages(), nodeCoordinates: nodeCoordinates.onHugePages(),
            nodeOSMIDs: nodeOSMIDs, nodeInLargestComponent: [Bool](repeating: false, count: nodeCount),
            pieceFirstCoordinate: pieces.firstCoordinate.onHugePages(), pieceWayIDs: pieces.wayIDs,
            pieceFirstEdge: pieceFirstEdge.onHugePages(), pieceEdges: pieceEdges.onHugePages(),
            coordinates: pieces.coordinates.onHugePages(), sourceFingerprint: 0)
        graph.edgeTurnsMilliseconds = edgeTurns
        graph.indexRouteEdges()
        return (graph, zoneNodes)
    }
}
