import CabGeo
import CabRoutingBench
import CabTestSupport
import Foundation
import Testing

@testable import CabRouting

@Suite struct RoadGraphFileTests {
    func sampleGraph() -> RoadGraph {
        var builder = SyntheticCity.gridInput(rows: 12, cols: 15, seed: 7)
        builder.sourceFingerprint = 0xFEED
        return builder.build()
    }

    func scratchPath(_ name: String) throws -> String {
        try TestData.temporaryDirectory("routing").appendingPathComponent(name).path
    }

    @Test func readsBackWhatItWrote() throws {
        let graph = sampleGraph()
        let path = try scratchPath("graph.bin")
        try graph.write(to: path)
        let loaded = try RoadGraph.load(from: path, expectedFingerprint: 0xFEED)
        #expect(loaded.firstEdge == graph.firstEdge)
        #expect(loaded.edgeTargets == graph.edgeTargets)
        #expect(loaded.edgeDurationsMilliseconds == graph.edgeDurationsMilliseconds)
        #expect(loaded.coordinates == graph.coordinates)
        #expect(loaded.nodeInLargestComponent == graph.nodeInLargestComponent)
        #expect(loaded.pieceEdges == graph.pieceEdges)
        var a = DijkstraRouter(graph: graph)
        var b = DijkstraRouter(graph: loaded)
        let snapper = Snapper(graph: loaded)
        let endpoints = try snapper.endpoints(from: graph.nodeCoordinates[0], to: graph.nodeCoordinates.last!)
        #expect(try a.route(endpoints) == b.route(endpoints))
    }

    @Test func refusesAnotherMap() throws {
        let path = try scratchPath("graph.bin")
        try sampleGraph().write(to: path)
        let error = #expect(throws: RoutingError.self) { try RoadGraph.load(from: path, expectedFingerprint: 0xBEEF) }
        #expect(error?.code == .wrongMap)
        #expect(error?.message.contains("built from another map") == true)
    }

    @Test func refusesAnotherFormatVersion() throws {
        let path = try scratchPath("graph.bin")
        try sampleGraph().write(to: path)
        var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        bytes[8] = 99  // the version follows the 8-byte magic
        try bytes.write(to: URL(fileURLWithPath: path))
        let error = #expect(throws: RoutingError.self) { try RoadGraph.load(from: path) }
        #expect(error?.code == .wrongVersion)
        #expect(error?.message.contains("format version 99") == true)
    }

    @Test func refusesATruncatedOrForeignFile() throws {
        let path = try scratchPath("graph.bin")
        try sampleGraph().write(to: path)
        let whole = try Data(contentsOf: URL(fileURLWithPath: path))
        try whole.prefix(whole.count / 2).write(to: URL(fileURLWithPath: path))
        #expect(throws: RoutingError.self) { try RoadGraph.load(from: path) }
        try Data("not a graph at all, just some text that is long enough".utf8).write(to: URL(fileURLWithPath: path))
        let error = #expect(throws: RoutingError.self) { try RoadGraph.load(from: path) }
        #expect(error?.code == .corruptFile)
        let missing = #expect(throws: RoutingError.self) { try RoadGraph.load(from: path + ".missing") }
        #expect(missing?.code == .fileAccess)
    }

    @Test func refusesAFileWhoseIndicesPointOutside() throws {
        let path = try scratchPath("graph.bin")
        let graph = sampleGraph()
        try graph.write(to: path)
        var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        // Overwrite the first edge target (after the 64-byte header, then the first-edge offsets and the edge
        // sources, each array a count and its values padded to 8 bytes) with 0xFFFFFFFF: the checksum catches it.
        func padded(_ bytes: Int) -> Int { (bytes + 7) / 8 * 8 }
        let offset = 64 + 8 + padded(4 * (graph.nodeCount + 1)) + 8 + padded(4 * graph.edgeCount) + 8
        for i in 0..<4 { bytes[offset + i] = 0xFF }
        try bytes.write(to: URL(fileURLWithPath: path))
        let error = #expect(throws: RoutingError.self) { try RoadGraph.load(from: path) }
        #expect(error?.code == .corruptFile)
        #expect(error?.message.contains("checksum") == true)
    }
}
