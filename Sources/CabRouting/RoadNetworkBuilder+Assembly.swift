import CabGeo

/// The pieces of road cut out of the ways, before turn restrictions split nodes. Base edge `p << 1 | reversed`
/// drives piece `p`; it exists when the way's rule allows that direction.
struct PieceTable {
    var wayIDs: [Int64] = []
    var tails: [Int32] = []
    var heads: [Int32] = []
    var forward: [Bool] = []
    var backward: [Bool] = []
    var distancesDm: [UInt32] = []
    var durationsMilliseconds: [UInt32] = []
    var firstCoordinate: [UInt32] = [0]
    var coordinates: [Coordinate] = []

    var count: Int { wayIDs.count }

    mutating func reserve(pieces: Int, coordinates count: Int) {
        wayIDs.reserveCapacity(pieces)
        tails.reserveCapacity(pieces)
        heads.reserveCapacity(pieces)
        forward.reserveCapacity(pieces)
        backward.reserveCapacity(pieces)
        distancesDm.reserveCapacity(pieces)
        durationsMilliseconds.reserveCapacity(pieces)
        firstCoordinate.reserveCapacity(pieces + 1)
        coordinates.reserveCapacity(count)
    }

    mutating func add(
        way: Int64, rule: TravelProfile.WayRule, nodes: ArraySlice<Int32>, coordinates nodeCoordinates: [Coordinate]
    ) {
        var meters = 0.0
        var previous: Coordinate? = nil
        for n in nodes {
            let c = nodeCoordinates[Int(n)]
            if let p = previous { meters += p.distanceMeters(to: c) }
            coordinates.append(c)
            previous = c
        }
        wayIDs.append(way)
        tails.append(nodes.first!)  // a piece spans at least two way positions
        heads.append(nodes.last!)
        forward.append(rule.forward)
        backward.append(rule.backward)
        distancesDm.append(UInt32((meters * 10).rounded()))
        durationsMilliseconds.append(UInt32((meters / (rule.speedKmh / 3.6) * 1000).rounded()))
        firstCoordinate.append(UInt32(coordinates.count))
    }

    func exists(_ base: Int) -> Bool { base & 1 == 0 ? forward[base >> 1] : backward[base >> 1] }
    func tail(_ base: Int) -> Int { Int(base & 1 == 0 ? tails[base >> 1] : heads[base >> 1]) }
    func head(_ base: Int) -> Int { Int(base & 1 == 0 ? heads[base >> 1] : tails[base >> 1]) }
    func way(_ base: Int) -> Int64 { wayIDs[base >> 1] }
}

/// The via nodes of valid restrictions, with their incoming base edges and the turns they allow.
struct RestrictionIndex {
    /// Restrictions per via node (dense node index).
    private var byVia: [Int: [TurnRestriction]] = [:]
    /// Incoming base edges of every restricted via node.
    private(set) var incoming: [Int: [Int]] = [:]

    init(
        restrictions: [TurnRestriction], lookup: NodeLookup, pieces: PieceTable,
        report: inout RoadNetworkBuilder.Report
    ) {
        guard !restrictions.isEmpty else { return }
        var candidates: [Int: [TurnRestriction]] = [:]
        for r in restrictions {
            if let n = lookup.index(of: r.viaNode) { candidates[n, default: []].append(r) }
        }
        var into: [Int: [Int]] = [:]
        var outOf: [Int: [Int]] = [:]
        for base in 0..<(pieces.count * 2) where pieces.exists(base) {
            let head = pieces.head(base)
            let tail = pieces.tail(base)
            if candidates[head] != nil { into[head, default: []].append(base) }
            if candidates[tail] != nil { outOf[tail, default: []].append(base) }
        }
        for r in restrictions {
            guard let n = lookup.index(of: r.viaNode),
                into[n]?.contains(where: { pieces.way($0) == r.fromWay }) == true,
                outOf[n]?.contains(where: { pieces.way($0) == r.toWay }) == true
            else {
                report.ignoredRestrictions += 1
                continue
            }
            report.appliedRestrictions += 1
            byVia[n, default: []].append(r)
        }
        for n in byVia.keys { incoming[n] = into[n] ?? [] }
    }

    func isRestricted(_ node: Int) -> Bool { byVia[node] != nil }

    /// True when a car that arrived at the via node along base edge `arrival` may leave along `departure`.
    func allows(arrival: Int, departure: Int, pieces: PieceTable) -> Bool {
        let node = pieces.head(arrival)
        guard let rules = byVia[node] else { return true }
        let from = pieces.way(arrival)
        let to = pieces.way(departure)
        var onlyAllowed: Bool? = nil
        for r in rules where r.fromWay == from {
            switch r.kind {
            case .no: if r.toWay == to { return false }
            case .only: onlyAllowed = (onlyAllowed ?? false) || r.toWay == to
            }
        }
        return onlyAllowed ?? true
    }
}

/// Numbers the graph nodes (splitting restricted via nodes) and lays the edges out in CSR order.
enum GraphAssembler {
    static func assemble(
        pieces: PieceTable, restrictions: RestrictionIndex, isJunction: [Bool], nodeIDs: [Int64],
        coordinates: [Coordinate]
    ) -> RoadGraph {
        let baseCount = pieces.count * 2
        var used = [Bool](repeating: false, count: nodeIDs.count)
        for p in 0..<pieces.count {
            used[Int(pieces.tails[p])] = true
            used[Int(pieces.heads[p])] = true
        }
        // Graph node of each plain junction, or of each incoming base edge of a restricted via node.
        var nodeOf = [Int32](repeating: -1, count: nodeIDs.count)
        var copyOf = [Int32](repeating: -1, count: baseCount)
        var nodeCoordinates: [Coordinate] = []
        var nodeOSMIDs: [Int64] = []
        for n in nodeIDs.indices where used[n] {
            if restrictions.isRestricted(n) {
                for base in restrictions.incoming[n] ?? [] {
                    copyOf[base] = Int32(nodeOSMIDs.count)
                    nodeCoordinates.append(coordinates[n])
                    nodeOSMIDs.append(nodeIDs[n])
                }
            } else {
                nodeOf[n] = Int32(nodeOSMIDs.count)
                nodeCoordinates.append(coordinates[n])
                nodeOSMIDs.append(nodeIDs[n])
            }
        }
        // Edges as (source, target, base edge), then a counting sort by source.
        var sources: [UInt32] = []
        var targets: [UInt32] = []
        var bases: [UInt32] = []
        // Split via nodes can add edges beyond one per base edge; reserved space is not resident until written.
        sources.reserveCapacity(baseCount * 2)
        targets.reserveCapacity(baseCount * 2)
        bases.reserveCapacity(baseCount * 2)
        for base in 0..<baseCount where pieces.exists(base) {
            let head = pieces.head(base)
            let tail = pieces.tail(base)
            let target = restrictions.isRestricted(head) ? copyOf[base] : nodeOf[head]
            if restrictions.isRestricted(tail) {
                for arrival in restrictions.incoming[tail] ?? []
                where restrictions.allows(arrival: arrival, departure: base, pieces: pieces) {
                    sources.append(UInt32(copyOf[arrival]))
                    targets.append(UInt32(target))
                    bases.append(UInt32(base))
                }
            } else {
                sources.append(UInt32(nodeOf[tail]))
                targets.append(UInt32(target))
                bases.append(UInt32(base))
            }
        }
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
        return RoadGraph(
            firstEdge: firstEdge, edgeSources: edgeSources, edgeTargets: edgeTargets,
            edgeDurationsMilliseconds: edgePieces.map { pieces.durationsMilliseconds[Int($0 >> 1)] },
            edgeDistancesDm: edgePieces.map { pieces.distancesDm[Int($0 >> 1)] }, edgePieces: edgePieces,
            nodeCoordinates: nodeCoordinates, nodeOSMIDs: nodeOSMIDs,
            nodeInLargestComponent: [Bool](repeating: false, count: nodeCount),
            pieceFirstCoordinate: pieces.firstCoordinate, pieceWayIDs: pieces.wayIDs,
            pieceFirstEdge: pieceFirstEdge, pieceEdges: pieceEdges, coordinates: pieces.coordinates,
            sourceFingerprint: 0)
    }
}
