import CabGeo
import CabImport
import CabOSM
import CabRouting
import CabTestSupport

/// The road graphs of the shared extracts, imported once per test process (PBF through `RoadImport`) together
/// with their fast-routing index, so that every test that needs one pays for the import and the contraction once.
struct SharedExtractGraph: Sendable {
    let name: String
    let graph: RoadGraph
    let index: FastRouterIndex
    let snapper: Snapper

    static let helsinki = load("helsinki")
    static let monaco = load("monaco")
    static let baltimore = load("baltimore")
    static let liechtenstein = load("liechtenstein-latest")

    /// The imported extract called `name` (one of `TestData.sharedExtractNames`).
    static func named(_ name: String) -> SharedExtractGraph {
        switch name {
        case "helsinki": helsinki
        case "monaco": monaco
        case "baltimore": baltimore
        case "liechtenstein-latest": liechtenstein
        default: preconditionFailure("no shared extract called \(name)")
        }
    }

    private static func load(_ name: String) -> SharedExtractGraph {
        let path = TestData.sharedExtract(name).path
        do {
            var handler = RoadImport(sourceFingerprint: try MapFingerprint.ofFile(atPath: path))
            try PBFReader(path: path).read(into: &handler, options: .init(nodeTags: false))
            let graph = handler.build().graph
            return SharedExtractGraph(
                name: name, graph: graph, index: FastRouterIndex(graph: ContractionGraph(roadGraph: graph)),
                snapper: Snapper(graph: graph))
        } catch {
            preconditionFailure("cannot import the shared extract \(path): \(error)")
        }
    }

    /// `count` seeded points near the roads of the largest component: a random shape point moved up to ~40 m.
    func pointsNearRoads(count: Int, seed: UInt64) -> [Coordinate] {
        var random = SplitMix64(seed: seed)
        var points: [Coordinate] = []
        while points.count < count {
            let piece = Int(random.next() % UInt64(graph.pieceCount))
            guard graph.pieceIsInLargestComponent(piece) else { continue }
            let range = graph.coordinateRange(ofPiece: piece)
            let c = graph.coordinates[range.lowerBound + Int(random.next() % UInt64(range.count))]
            let dLat = 0.0007 * (random.nextDouble() - 0.5)
            let dLon = 0.0007 * (random.nextDouble() - 0.5)
            points.append(Coordinate(latitude: c.latitude + dLat, longitude: c.longitude + dLon))
        }
        return points
    }
}
