import CabGeo
import CabImport
import CabOSM
import CabTestSupport

@testable import CabRouting

/// The road graphs of the shared extracts, imported once per test process (PBF through `RoadImport`) together
/// with their fast-routing index, so that every test that needs one pays for the import and the contraction once.
struct SharedExtractGraph: Sendable {
    let name: String
    let graph: RoadGraph
    let index: FastRouterIndex
    /// The same hierarchy with labels on its upper part only (a quarter of the full labels' entries), so that
    /// queries climb from the unlabelled bottom.
    let upperIndex: FastRouterIndex
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
            // Node tags too, as `cab import` reads them (barriers).
            try PBFReader(path: path).read(into: &handler)
            let graph = handler.build().graph
            let index = FastRouterIndex(graph: ContractionGraph(roadGraph: graph))
            let entries = index.labels?.entryCount ?? 0
            let upper = FastRouterIndex(
                hierarchy: index.hierarchy, labels: HubLabels(hierarchy: index.hierarchy, entryLimit: entries / 4),
                edgeFrom: index.edgeFrom, edgeTo: index.edgeTo)
            return SharedExtractGraph(
                name: name, graph: graph, index: index, upperIndex: upper, snapper: Snapper(graph: graph))
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
