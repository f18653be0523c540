import CabGeo
import CabImport
import CabOSM
import CabTestSupport
import Foundation
import Testing

@testable import CabRouting

/// A metro-size import: a synthetic city of 330 × 330 junctions (about 108,000 graph nodes) written by
/// `../shared/tools/synth_city.py`, converted to PBF with osmium, imported through `RoadImport`, preprocessed
/// with labels over its upper hierarchy only, and routed. Generated here, never checked in; skipped with a
/// message when osmium or python3 is missing (`scripts/install-deps.sh --test` installs osmium).
@Suite struct MetroImportTests {
    static let side = 330
    static let tool = TestData.repositoryRoot.deletingLastPathComponent().appendingPathComponent(
        "shared/tools/synth_city.py")

    /// True when the generator and osmium are both there.
    static let toolsPresent =
        FileManager.default.isExecutableFile(atPath: "/usr/bin/osmium")
        && FileManager.default.isExecutableFile(atPath: "/usr/bin/python3")
        && FileManager.default.fileExists(atPath: tool.path)

    /// Generates the city and converts it to PBF in a scratch directory.
    static func generateCity() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "metro-import-\(ProcessInfo.processInfo.processIdentifier)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let xml = directory.appendingPathComponent("city.osm")
        let pbf = directory.appendingPathComponent("city.osm.pbf")
        let generated = try CabProcess.run(
            executable: URL(fileURLWithPath: "/usr/bin/python3"), [tool.path, String(side), xml.path])
        try #require(generated.status == 0, "synth_city.py failed: \(generated.standardError)")
        let converted = try CabProcess.run(
            executable: URL(fileURLWithPath: "/usr/bin/osmium"), ["cat", xml.path, "-o", pbf.path, "--overwrite"])
        try #require(converted.status == 0, "osmium cat failed: \(converted.standardError)")
        try FileManager.default.removeItem(at: xml)
        return pbf
    }

    @Test(.enabled(if: toolsPresent, "osmium or python3 is missing: run scripts/install-deps.sh --test"))
    func importsRoutesAndAnswersLikeDijkstra() throws {
        let pbf = try Self.generateCity()
        defer { try? FileManager.default.removeItem(at: pbf.deletingLastPathComponent()) }
        var handler = RoadImport(sourceFingerprint: try MapFingerprint.ofFile(atPath: pbf.path))
        try PBFReader(path: pbf.path).read(into: &handler, options: .init(nodeTags: false))
        let graph = handler.build().graph
        // Junctions are nodes (the N² crossings, less dead ends' missing blocks), shape points are geometry.
        let n = Self.side * Self.side
        #expect(graph.nodeCount > n * 95 / 100 && graph.nodeCount <= n, "\(graph.nodeCount) nodes")
        #expect(graph.coordinates.count > graph.nodeCount, "the mid-block shape points are geometry")
        let connected = graph.nodeInLargestComponent.filter { $0 }.count
        #expect(connected > graph.nodeCount * 95 / 100, "\(connected) of \(graph.nodeCount) in the largest component")

        // Labels over the upper hierarchy only (a budget far below what the whole city needs), so queries
        // climb; every answer equals Dijkstra's.
        let index = FastRouterIndex(
            graph: ContractionGraph(roadGraph: graph), configuration: .init(hubLabelEntryLimit: 1_000_000))
        let labels = try #require(index.labels)
        #expect(!labels.coversEveryNode && labels.entryCount <= 1_000_000)
        let router = FastRouter(index: index, graph: graph)
        let snapper = Snapper(graph: graph)
        var dijkstra = DijkstraRouter(graph: graph)
        var random = SplitMix64(seed: 19)
        let box = try #require(BoundingBox(enclosing: graph.coordinates))
        func point() -> Coordinate {
            Coordinate(
                latitude: box.southWest.latitude + random.nextDouble()
                    * (box.northEast.latitude - box.southWest.latitude),
                longitude: box.southWest.longitude + random.nextDouble()
                    * (box.northEast.longitude - box.southWest.longitude))
        }
        let points = try (0..<21).map { _ in try snapper.snap(point()) }
        for i in 0..<20 {
            let endpoints = RouteEndpoints(start: points[i], end: points[i + 1], in: graph)
            let expected = dijkstra.durationMilliseconds(endpoints)
            #expect(router.durationMilliseconds(endpoints) == expected, "pair \(i)")
            #expect((try? router.route(endpoints))?.durationMilliseconds == expected, "pair \(i)")
        }
        let drivers = Array(points.prefix(20))
        let oneToOne = drivers.map {
            dijkstra.durationMilliseconds(RouteEndpoints(start: $0, end: points[20], in: graph))
        }
        #expect(router.durationsMilliseconds(from: drivers, to: points[20]) == oneToOne)
    }
}
