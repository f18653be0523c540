import CabGeo

/// Collects a road network's raw input (nodes, ways with tags, turn restrictions) and builds a `RoadGraph`.
///
/// Takes plain values, no OSM types: `CabImport` feeds it from a PBF, tests from ASCII maps. Nodes come first
/// (as in a sorted PBF); only ways with a `highway` tag and only the tags `TravelProfile.wayKeys` lists are kept,
/// and the graph keeps only the nodes routable ways use. A way with missing nodes (clipped by the extract's
/// edge) keeps each run of nodes that are present.
public struct RoadNetworkBuilder: Sendable {
    /// The nodes added (`CabImport` shares this one table with the base map and the place index).
    public private(set) var nodes = NodeTable()
    var wayIDs: [Int64] = []
    var wayTagSets: [Int32] = []
    var wayFirstNode: [Int] = [0]
    var wayNodeIDs: [Int64] = []
    var tagSets: [[String: String]] = []
    var tagSetIndex: [[String: String]: Int32] = [:]
    var restrictions: [TurnRestriction] = []
    var barrierIDs: [Int64] = []
    var delays: [(nodeID: Int64, delay: TravelProfile.NodeDelay)] = []
    /// The fingerprint written into the graph (see `MapFingerprint`).
    public var sourceFingerprint: UInt64 = 0

    /// An empty builder.
    public init() {}

    /// How many nodes were added.
    public var nodeCount: Int { nodes.count }

    /// Reserves room for about `nodes` nodes and `wayNodes` way node references (optional; saves copying).
    public mutating func reserve(nodes: Int, wayNodes: Int) {
        self.nodes.reserveCapacity(nodes)
        wayNodeIDs.reserveCapacity(wayNodes)
    }

    /// Adds a node.
    public mutating func addNode(id: Int64, coordinate: Coordinate) {
        nodes.append(id: id, coordinate: coordinate)
    }

    /// Adds a way; ways without a `highway` tag are ignored.
    public mutating func addWay(id: Int64, nodeIDs: [Int64], tags: [String: String]) {
        guard tags["highway"] != nil else { return }
        let kept = tags.filter { TravelProfile.wayKeys.contains($0.key) }
        let index: Int32
        if let known = tagSetIndex[kept] {
            index = known
        } else {
            index = Int32(tagSets.count)
            tagSets.append(kept)
            tagSetIndex[kept] = index
        }
        wayIDs.append(id)
        wayTagSets.append(index)
        wayNodeIDs.append(contentsOf: nodeIDs)
        wayFirstNode.append(wayNodeIDs.count)
    }

    /// How many junctions around every restricted one also ban U-turns (joints where only two pieces meet are
    /// passed without counting; see `TurnStates`). `Int.max` makes
    /// every junction connected to a restriction turn-aware (an edge-based graph there), the only setting under
    /// which no route turns back at a junction that is no dead end, but on a city with restrictions all over it
    /// that is the whole city, and the hierarchy on top costs many times more (`cab bench route --synthetic`
    /// did not finish in 5 minutes where it took 13 s). The default, 2, keeps graphs within a few per cent and
    /// leaves a share of routes turning back just past the second ring (`cab bench turns` counts them; see
    /// docs/turns.md). Maps without restrictions are not split at all.
    public var uTurnGuardRings = 2
    /// The most junctions a graph may have for turns to cost by their angle (`TravelProfile.turnPenaltyMilliseconds`).
    /// Turn costs split every junction per arrival (an edge-based graph: about three graph nodes per junction),
    /// and the hierarchy on top costs many times more than on the plain graph; above the limit the graph stays
    /// node-based and turns are free. See docs/turns.md for what each costs.
    public var turnCostJunctionLimit = 10_000
    /// Which turn rules the graph enforces; `.viaNodesOnly` rebuilds the graph of before via-way restrictions and
    /// U-turn rules (the benchmark's same-run baseline).
    public var turnRules = TurnRules.full

    /// Which turn rules a build enforces.
    public enum TurnRules: Sendable, Hashable {
        /// Via-node and via-way restrictions, no U-turns around restricted junctions except at dead ends.
        case full
        /// Via-node restrictions only, with U-turns allowed everywhere (the graph before issue 19, item 2).
        case viaNodesOnly
    }

    /// Adds a turn restriction (through a via node or via ways).
    public mutating func addRestriction(_ restriction: TurnRestriction) {
        restrictions.append(restriction)
    }

    /// Adds a node a car cannot pass (a bollard, a block; see `TravelProfile.blocks(barrier:)`): a car that
    /// arrives there may only turn back, as at a dead end.
    public mutating func addBarrier(nodeID: Int64) {
        barrierIDs.append(nodeID)
    }

    /// Adds a delay for passing a node (a traffic signal, a gate), paid by every car driving through it in the
    /// delay's direction; a car whose route starts there pays nothing.
    public mutating func addDelay(nodeID: Int64, _ delay: TravelProfile.NodeDelay) {
        delays.append((nodeID, delay))
    }

    /// Reads a node's tags as `profile` sees them: a barrier that stops the vehicle (`addBarrier`), or a delay
    /// for passing it (`addDelay`). `CabImport` and the test fixtures both come through here.
    public mutating func addNodeTags(id: Int64, tags: [String: String], profile: TravelProfile) {
        if profile.blocks(barrier: tags) {
            addBarrier(nodeID: id)
        } else if let delay = profile.passageDelay(node: tags) {
            addDelay(nodeID: id, delay)
        }
    }

    /// What a build kept and dropped.
    public struct Report: Sendable, Hashable {
        /// Ways whose `highway` class the profile drives (before access and oneway).
        public var highwayClassWays = 0
        /// Ways the profile may drive in at least one direction.
        public var routableWays = 0
        /// Routable ways with at least one missing node.
        public var clippedWays = 0
        /// Routable ways with no two consecutive nodes present.
        public var emptyWays = 0
        /// Restrictions turned into graph structure.
        public var appliedRestrictions = 0
        /// Restrictions whose ways or node are not in the graph, do not meet, or cannot be driven in order.
        public var ignoredRestrictions = 0
        /// Via-way restrictions whose via ways do not form one chain in member order (unordered, disconnected,
        /// closed or ambiguous): counted and skipped, never guessed.
        public var brokenViaChains = 0
        /// True when turns cost by their angle (every junction split; `turnCostJunctionLimit`).
        public var costsTurns = false
        /// Junctions split into one graph node per arrival (restricted ones and their guard rings, or all of them
        /// when turns cost).
        public var turnAwareJunctions = 0
        /// Extra graph nodes for cars part-way along a via-way restriction's chain.
        public var viaChainStates = 0
        /// Barrier nodes on routable ways (a car arriving there turns back).
        public var barriers = 0
        /// Nodes on routable ways that delay a car passing them (traffic signals, gates).
        public var delayNodes = 0
        /// Graph nodes inside zones of roads for destination traffic only, with their copies (`DestinationZones`).
        public var destinationZoneNodes = 0
    }

    /// Builds the graph for `profile` (nil: `.taxi`; a `= .taxi` default argument was seen to build the profile without its later fields on Swift 6.3).
    /// `profile` decides which ways are driven and how; the turn restrictions and node delays are those the import
    /// fed in, filtered for the import's own profile (`RoadImport.profile`): a graph for another vehicle needs an
    /// import of its own (as `cab bench turns` does for a private car).
    /// - Complexity: O((n + w) log n) for n nodes and w way nodes.
    public func build(profile: TravelProfile? = nil) -> RoadGraph {
        buildReporting(profile: profile).graph
    }

    /// Builds the graph for `profile` (nil: `.taxi`) and says what was kept and dropped.
    public func buildReporting(profile chosen: TravelProfile? = nil) -> (graph: RoadGraph, report: Report) {
        let profile = chosen ?? .taxi
        var report = Report()
        let lookup = nodes.lookup()
        let rules = tagSets.map { profile.rule(forWay: $0) }
        let classes = tagSets.map { profile.drivesHighwayClass($0) }

        // Resolve node references; count how many way positions use each node; mark run ends and via nodes.
        var resolved = [Int32](repeating: -1, count: wayNodeIDs.count)
        var uses = [UInt8](repeating: 0, count: nodes.count)
        var isJunction = [Bool](repeating: false, count: nodes.count)
        for way in wayIDs.indices {
            if classes[Int(wayTagSets[way])] { report.highwayClassWays += 1 }
            guard rules[Int(wayTagSets[way])] != nil else { continue }
            report.routableWays += 1
            let range = wayFirstNode[way]..<wayFirstNode[way + 1]
            var missing = false
            for i in range {
                if let n = lookup.index(of: wayNodeIDs[i]) {
                    resolved[i] = Int32(n)
                    uses[n] &+= uses[n] < 255 ? 1 : 0
                } else {
                    missing = true
                }
            }
            if missing { report.clippedWays += 1 }
            var present = false
            for i in range where resolved[i] >= 0 {
                let startsRun = i == range.lowerBound || resolved[i - 1] < 0
                let endsRun = i + 1 == range.upperBound || resolved[i + 1] < 0
                if startsRun || endsRun { isJunction[Int(resolved[i])] = true }
                if !endsRun { present = true }
            }
            if !present { report.emptyWays += 1 }
        }
        for n in uses.indices where uses[n] >= 2 { isJunction[n] = true }
        var barriers: [Int] = []
        for id in barrierIDs {
            if let n = lookup.index(of: id), uses[n] > 0 {
                isJunction[n] = true
                barriers.append(n)
            }
        }
        report.barriers = barriers.count
        for r in restrictions {
            if let id = r.viaNode, let n = lookup.index(of: id), uses[n] > 0 { isJunction[n] = true }
        }
        var delayAt: [Int: TravelProfile.NodeDelay] = [:]
        for (id, delay) in delays {
            if let n = lookup.index(of: id), uses[n] > 0 { delayAt[n] = delay }
        }
        report.delayNodes = delayAt.count

        // Cut every run into pieces between junctions; each piece yields up to two base edges.
        var pieces = PieceTable()
        // Upper bounds, so that no large array grows by copying (unwritten capacity is not resident).
        pieces.reserve(pieces: wayNodeIDs.count, coordinates: wayNodeIDs.count * 2)
        // The pieces of the ways restrictions name, for resolving them.
        var named: Set<Int64> = []
        for r in restrictions {
            named.insert(r.fromWay)
            named.insert(r.toWay)
            if case .ways(let ways) = r.via { named.formUnion(ways) }
        }
        var wayPieces: [Int64: Range<Int>] = [:]
        for way in wayIDs.indices {
            guard let rule = rules[Int(wayTagSets[way])] else { continue }
            let firstPiece = pieces.count
            defer { if named.contains(wayIDs[way]) { wayPieces[wayIDs[way]] = firstPiece..<pieces.count } }
            var start: Int? = nil
            for i in wayFirstNode[way]..<wayFirstNode[way + 1] {
                let n = Int(resolved[i])
                guard n >= 0 else {
                    start = nil
                    continue
                }
                if let s = start, isJunction[n] {
                    pieces.add(
                        way: wayIDs[way], rule: rule, nodes: resolved[s...i], coordinates: nodes.coordinates)
                    if !delayAt.isEmpty { pieces.addDelays(delayAt, nodes: resolved[s...i]) }
                    start = i
                } else if start == nil {
                    start = i
                }
            }
        }

        let resolver = RestrictionResolver(pieces: pieces, lookup: lookup, wayPieces: wayPieces)
        var applied: [ResolvedRestriction] = []
        for r in restrictions {
            if turnRules == .viaNodesOnly, r.viaNode == nil {
                report.ignoredRestrictions += 1
                continue
            }
            switch resolver.resolve(r) {
            case .applied(let restriction):
                applied.append(restriction)
                report.appliedRestrictions += 1
            case .ignored: report.ignoredRestrictions += 1
            case .brokenChain: report.brokenViaChains += 1
            }
        }
        var junctions = 0
        for n in isJunction.indices where isJunction[n] && uses[n] > 0 { junctions += 1 }
        let costsTurns =
            turnRules == .full && profile.turnPenaltyMilliseconds > 0 && junctions <= turnCostJunctionLimit
        let turns = TurnStates(
            pieces: pieces, nodeCount: nodes.count, restrictions: applied, barriers: barriers,
            guardRings: turnRules == .full ? uTurnGuardRings : 0, refusesUTurns: turnRules == .full,
            turnCosts: costsTurns ? TurnCostModel(profile: profile, pieces: pieces, nodeCount: nodes.count) : nil)
        report.costsTurns = costsTurns
        report.turnAwareJunctions = turns.turnAwareCount
        report.viaChainStates = turns.chainStateCount
        var (graph, zoneNodes) = GraphAssembler.assemble(
            pieces: pieces, turns: turns, nodeIDs: nodes.ids, coordinates: nodes.coordinates,
            uTurnPenaltyMilliseconds: profile.uTurnPenaltyMilliseconds)
        report.destinationZoneNodes = zoneNodes?.filter { $0 }.count ?? 0
        graph.sourceFingerprint = sourceFingerprint
        graph.markLargestComponent(zoneNodes: zoneNodes)
        return (graph, report)
    }
}
