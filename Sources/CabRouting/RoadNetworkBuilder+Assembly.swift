import CabGeo

/// The pieces of road cut out of the ways, before turn restrictions split nodes. Base edge `p << 1 | reversed`
/// drives piece `p`; it exists when the way's rule allows that direction.
struct PieceTable {
    var wayIDs: [Int64] = []
    var tails: [Int32] = []
    var heads: [Int32] = []
    var forward: [Bool] = []
    var backward: [Bool] = []
    /// Pieces of ways open only to traffic with a destination on them (`TravelProfile.WayRule.destinationOnly`).
    var destinationOnly: [Bool] = []
    /// Pieces of roundabouts (`TravelProfile.WayRule.roundabout`).
    var roundabout: [Bool] = []
    var distancesDm: [UInt32] = []
    var durationsMilliseconds: [UInt32] = []
    var firstCoordinate: [UInt32] = [0]
    var coordinates: [Coordinate] = []
    /// Delays (traffic signals, gates) paid on driving each base edge, where there are any.
    var baseDelaysMilliseconds: [Int: UInt32] = [:]

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
        destinationOnly.append(rule.destinationOnly)
        roundabout.append(rule.roundabout)
        distancesDm.append(UInt32((meters * 10).rounded()))
        durationsMilliseconds.append(UInt32((meters / (rule.speedKmh / 3.6) * 1000).rounded()))
        firstCoordinate.append(UInt32(coordinates.count))
    }

    /// Charges the delays of the nodes of the piece just added: a node inside it to both directions (or the one
    /// its delay names), a junction at its end to the direction arriving there (the car passes through it once,
    /// on the edge it arrives by).
    mutating func addDelays(_ delayAt: [Int: TravelProfile.NodeDelay], nodes: ArraySlice<Int32>) {
        let piece = count - 1
        for (k, n) in zip(nodes.indices, nodes) {
            guard let delay = delayAt[Int(n)] else { continue }
            let forward = k != nodes.startIndex && delay.direction != .backward
            let backward = k != nodes.endIndex - 1 && delay.direction != .forward
            if forward { baseDelaysMilliseconds[piece << 1, default: 0] += delay.milliseconds }
            if backward { baseDelaysMilliseconds[piece << 1 | 1, default: 0] += delay.milliseconds }
        }
    }

    /// The time to drive base edge `base`: the piece's driving time and the delays on the way.
    func durationMilliseconds(_ base: Int) -> UInt32 {
        durationsMilliseconds[base >> 1]
            + (baseDelaysMilliseconds.isEmpty ? 0 : baseDelaysMilliseconds[base, default: 0])
    }

    func exists(_ base: Int) -> Bool { base & 1 == 0 ? forward[base >> 1] : backward[base >> 1] }
    func tail(_ base: Int) -> Int { Int(base & 1 == 0 ? tails[base >> 1] : heads[base >> 1]) }
    func head(_ base: Int) -> Int { Int(base & 1 == 0 ? heads[base >> 1] : tails[base >> 1]) }
    func way(_ base: Int) -> Int64 { wayIDs[base >> 1] }
}
