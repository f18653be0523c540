import CabGeo
import CabRouting

/// Seeded synthetic road networks for tests and benchmarks at sizes the real extracts do not reach.
public enum SyntheticCity {
    /// The builder input of a `rows` x `cols` street grid about 100 m apart, reproducible from `seed`: every
    /// tenth street is primary (the rest residential with a random `maxspeed`), some streets are one-way (either
    /// direction), a share of blocks are missing (so streets are cut into several ways, and parts may be cut
    /// off), and some crossings carry `no_left_turn` or `only_straight_on` restrictions.
    /// - Complexity: O(rows x cols).
    public static func gridInput(
        rows: Int, cols: Int, seed: UInt64, missingShare: Double = 0.05, oneWayShare: Double = 0.2,
        restrictionShare: Double = 0.01
    ) -> RoadNetworkBuilder {
        precondition(rows >= 2 && cols >= 2, "a grid city needs at least 2 x 2 crossings")
        var random = SplitMix64(seed: seed)
        var builder = RoadNetworkBuilder()
        // No turn costs: the synthetic cities are measured against RoutingKit's node-based hierarchy, which has
        // none, and a grid of crossings is the edge-based contraction's worst case (docs/turns.md).
        builder.turnCostJunctionLimit = -1
        builder.sourceFingerprint = seed
        builder.reserve(nodes: rows * cols, wayNodes: 2 * rows * cols + rows + cols)
        let origin = Coordinate(latitude: 47.0, longitude: 9.5)
        let step = 100.0 / 111_195.0  // ~100 m of latitude, in degrees
        let lonStep = step / 0.682  // cos(47 deg)
        func node(_ r: Int, _ c: Int) -> Int64 { Int64(r * cols + c + 1) }
        for r in 0..<rows {
            for c in 0..<cols {
                let jitter = { (random.nextDouble() - 0.5) * step * 0.2 }
                builder.addNode(
                    id: node(r, c),
                    coordinate: Coordinate(
                        latitude: origin.latitude + Double(r) * step + jitter(),
                        longitude: origin.longitude + Double(c) * lonStep + jitter()))
            }
        }
        var nextWay: Int64 = 1
        // A street is a line of crossings; each missing block ends one way and starts the next.
        func addStreet(_ nodes: [Int64], index: Int) {
            var tags = ["highway": index % 10 == 0 ? "primary" : "residential"]
            if index % 10 != 0 { tags["maxspeed"] = ["30", "40", "50", "20 mph"][Int(random.next() % 4)] }
            let roll = random.nextDouble()
            if roll < oneWayShare / 2 { tags["oneway"] = "yes" } else if roll < oneWayShare { tags["oneway"] = "-1" }
            var current: [Int64] = [nodes[0]]
            for n in nodes.dropFirst() {
                if random.nextDouble() < missingShare {
                    if current.count >= 2 { builder.addWay(id: nextWay, nodeIDs: current, tags: tags) }
                    nextWay += 1
                    current = [n]
                } else {
                    current.append(n)
                }
            }
            if current.count >= 2 { builder.addWay(id: nextWay, nodeIDs: current, tags: tags) }
            nextWay += 1
        }
        var firstWayOfRow: [Int64] = []
        for r in 0..<rows {
            firstWayOfRow.append(nextWay)
            addStreet((0..<cols).map { node(r, $0) }, index: r)
        }
        var firstWayOfColumn: [Int64] = []
        for c in 0..<cols {
            firstWayOfColumn.append(nextWay)
            addStreet((0..<rows).map { node($0, c) }, index: c)
        }
        // Restrictions between the first ways of a row and of a column where both pass the crossing: the builder
        // ignores the ones whose ways do not meet there, as it does for broken OSM relations.
        let restrictions = Int(Double(rows * cols) * restrictionShare)
        for _ in 0..<restrictions {
            let r = Int(random.next() % UInt64(rows))
            let c = Int(random.next() % UInt64(cols))
            let kind: TurnRestriction.Kind = random.next() % 2 == 0 ? .no : .only
            builder.addRestriction(
                TurnRestriction(kind: kind, fromWay: firstWayOfRow[r], viaNode: node(r, c), toWay: firstWayOfColumn[c]))
        }
        return builder
    }

    /// A built grid city (see `gridInput`).
    public static func grid(rows: Int, cols: Int, seed: UInt64) -> RoadGraph {
        gridInput(rows: rows, cols: cols, seed: seed).build(profile: .taxi)
    }
}
