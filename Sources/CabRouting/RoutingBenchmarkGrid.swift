import CabGeo

/// A synthetic grid city for scaling figures: blocks of ~100 m, an arterial every 8th street (70 km/h against
/// 30 km/h), one street in ten one-way, one block edge in twelve missing. Deterministic for a seed.
public enum RoutingBenchmarkGrid {
    /// A grid city graph with one coordinate per node.
    public static func make(width: Int, height: Int, seed: UInt64 = 1) -> (graph: ContractionGraph, coordinates: [Coordinate]) {
        var random = seed == 0 ? 1 : seed
        func next() -> UInt64 {
            random ^= random << 13
            random ^= random >> 7
            random ^= random << 17
            return random
        }
        let origin = Coordinate(latitude: 47.0, longitude: 9.0)
        let metersPerDegreeLat = 111_320.0
        let metersPerDegreeLon = 111_320.0 * 0.682  // cos 47°
        var coordinates: [Coordinate] = []
        coordinates.reserveCapacity(width * height)
        for y in 0..<height {
            for x in 0..<width {
                let jx = Double(next() % 21) - 10
                let jy = Double(next() % 21) - 10
                coordinates.append(
                    Coordinate(
                        latitude: origin.latitude + (Double(y) * 100 + jy) / metersPerDegreeLat,
                        longitude: origin.longitude + (Double(x) * 100 + jx) / metersPerDegreeLon))
            }
        }
        var edges: [ContractionGraph.Edge] = []
        edges.reserveCapacity(width * height * 4)
        func connect(_ a: Int, _ b: Int, arterial: Bool, oneWay: Bool) {
            if next() % 12 == 0 && !arterial { return }
            let meters = coordinates[a].distanceMeters(to: coordinates[b])
            let metersPerSecond = arterial ? 70 / 3.6 : 30 / 3.6
            let ms = UInt32((meters / metersPerSecond * 1000).rounded())
            edges.append(.init(from: a, to: b, durationMs: ms, lengthMeters: Float(meters)))
            if !oneWay { edges.append(.init(from: b, to: a, durationMs: ms, lengthMeters: Float(meters))) }
        }
        for y in 0..<height {
            let oneWayRow = y % 10 == 5
            for x in 0..<width {
                let here = y * width + x
                if x + 1 < width {
                    connect(
                        y % 2 == 0 || !oneWayRow ? here : here + 1, y % 2 == 0 || !oneWayRow ? here + 1 : here,
                        arterial: y % 8 == 0, oneWay: oneWayRow)
                }
                if y + 1 < height { connect(here, here + width, arterial: x % 8 == 0, oneWay: x % 10 == 5) }
            }
        }
        return (ContractionGraph(nodeCount: width * height, edges: edges), coordinates)
    }
}
