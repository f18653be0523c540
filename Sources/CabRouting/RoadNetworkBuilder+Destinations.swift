import CabGeo

/// Keeps through traffic off roads open only to traffic with a destination on them (`motor_vehicle=destination`,
/// `TravelProfile.WayRule.destinationOnly`), on a node-based graph: a route may start there, end there, or both, but
/// not drive in from another road and out again onto another road. OSRM's car profile gets the same effect from a
/// large turn weight on entering such a road (a weight apart from the duration, which SwiftCab's graph has not).
///
/// The edges of those roads form *zones*. A zone's *boundary* nodes also touch other roads; its *interior* nodes
/// touch only its own. The graph gets a second copy of every zone node, the *inbound* layer, holding a copy of every
/// zone edge and no edge out of the zone: a car that drives in from a boundary node lands there and can only end its
/// route inside. The original zone edges stay for cars that started inside (they reach the boundary and leave),
/// except that an edge leaving a boundary node into the zone now leads into the inbound layer; a *start copy* of
/// that boundary node (no edge leads into it) keeps the edge into the original zone for cars whose route starts on
/// that piece (a route's seeds read every edge of its piece; see `RouteEndpoints`). Every edge keeps its piece, so
/// snapping, seeds, geometry and every engine see nothing new. A car that started inside, reached a boundary node
/// and drives on into the zone counts as arriving from outside (it may not leave again): a simplification.
///
/// The cost: a copy of each zone's nodes and edges (zones are small: a few streets of a city centre).
enum DestinationZones {
    /// Rewrites the edge lists (sources, targets, base edges, penalties by edge index) and appends the copies to
    /// the node lists; returns which graph nodes are zone nodes apart from boundaries (nil when there are none).
    static func split(
        sources: inout [UInt32], targets: inout [UInt32], bases: inout [UInt32], penalties: inout [Int: UInt32],
        nodeCoordinates: inout [Coordinate], nodeOSMIDs: inout [Int64], pieces: PieceTable
    ) -> [Bool]? {
        guard pieces.destinationOnly.contains(true) else { return nil }
        func isZoneEdge(_ e: Int) -> Bool { pieces.destinationOnly[Int(bases[e] >> 1)] }
        let originalCount = nodeOSMIDs.count
        var touchesZone = [Bool](repeating: false, count: originalCount)
        var touchesOther = [Bool](repeating: false, count: originalCount)
        for e in sources.indices {
            let zone = isZoneEdge(e)
            for v in [Int(sources[e]), Int(targets[e])] {
                if zone { touchesZone[v] = true } else { touchesOther[v] = true }
            }
        }
        func copy(_ v: Int) -> UInt32 {
            nodeCoordinates.append(nodeCoordinates[v])
            nodeOSMIDs.append(nodeOSMIDs[v])
            return UInt32(nodeOSMIDs.count - 1)
        }
        var inbound = [UInt32](repeating: .max, count: originalCount)
        for v in 0..<originalCount where touchesZone[v] { inbound[v] = copy(v) }
        var start: [Int: UInt32] = [:]
        func add(_ source: UInt32, _ target: UInt32, like e: Int) {
            if let penalty = penalties[e] { penalties[sources.count] = penalty }
            sources.append(source)
            targets.append(target)
            bases.append(bases[e])
        }
        for e in 0..<sources.count where isZoneEdge(e) {
            let x = Int(sources[e])
            let y = Int(targets[e])
            add(inbound[x], inbound[y], like: e)
            guard touchesOther[x] else { continue }
            // Into the zone from a boundary node: the inbound layer; only a start copy reaches the original.
            let origin = start[x] ?? copy(x)
            start[x] = origin
            targets[e] = inbound[y]
            add(origin, UInt32(y), like: e)
        }
        var zoneNodes = [Bool](repeating: true, count: nodeOSMIDs.count)
        for v in 0..<originalCount { zoneNodes[v] = touchesZone[v] && !touchesOther[v] }
        return zoneNodes
    }
}

extension RoadGraph {
    /// Marks the largest strongly connected component, and the destination-zone nodes (`DestinationZones`) it
    /// reaches or that reach it: their pieces are snapped onto like any other (a route may start or end there).
    /// - Complexity: O(nodes + edges).
    mutating func markLargestComponent(zoneNodes: [Bool]?) {
        markLargestComponent(ignoring: zoneNodes)
        guard let zoneNodes else { return }
        var marked = nodeInLargestComponent
        var reverseFirst = [Int](repeating: 0, count: nodeCount + 1)
        for e in 0..<edgeCount { reverseFirst[edgeTarget(e) + 1] += 1 }
        for v in 0..<nodeCount { reverseFirst[v + 1] += reverseFirst[v] }
        var slot = reverseFirst
        var reverseEdges = [Int](repeating: 0, count: edgeCount)
        for e in 0..<edgeCount {
            reverseEdges[slot[edgeTarget(e)]] = e
            slot[edgeTarget(e)] += 1
        }
        // Forward from the component into zones (cars driving in), backward (cars that started inside and leave).
        for forward in [true, false] {
            var reached = nodeInLargestComponent
            var stack = (0..<nodeCount).filter { reached[$0] }
            while let v = stack.popLast() {
                let next: [Int] =
                    forward
                    ? (Int(firstEdge[v])..<Int(firstEdge[v + 1])).map { edgeTarget($0) }
                    : (reverseFirst[v]..<reverseFirst[v + 1]).map { edgeSource(reverseEdges[$0]) }
                for w in next where zoneNodes[w] && !reached[w] {
                    reached[w] = true
                    marked[w] = true
                    stack.append(w)
                }
            }
        }
        nodeInLargestComponent = marked
    }
}
