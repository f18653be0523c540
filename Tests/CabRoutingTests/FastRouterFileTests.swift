import CabRoutingBench
import Testing

@testable import CabRouting

@Suite struct FastRouterFileTests {
    let graph = ContractionTestGraphs.random(nodes: 200, parts: 2, seed: 31)

    /// No labels, labels on every node, labels on the upper hierarchy only.
    @Test(arguments: [(false, 0), (true, 20_000_000), (true, 800)] as [(Bool, Int)])
    func roundTripAnswersTheSame(labels: Bool, entryLimit: Int) throws {
        let index = FastRouterIndex(
            graph: graph, configuration: .init(buildsHubLabels: labels, hubLabelEntryLimit: entryLimit))
        let bytes = index.fileBytes()
        let loaded = try FastRouterIndex(fileBytes: bytes, expectedFingerprint: graph.fingerprint)
        #expect(loaded.fileBytes() == bytes)
        #expect((loaded.labels != nil) == labels)
        #expect(loaded.labels?.lowestLabelledRank == index.labels?.lowestLabelledRank)
        if entryLimit == 800 { #expect(loaded.labels?.coversEveryNode == false) }
        let a = FastRouter(index: index)
        let b = FastRouter(index: loaded)
        for s in stride(from: 0, to: graph.nodeCount, by: 17) {
            for t in stride(from: 3, to: graph.nodeCount, by: 13) {
                #expect(
                    a.route(from: [.init(node: s)], to: [.init(node: t)])
                        == b.route(from: [.init(node: s)], to: [.init(node: t)]))
            }
        }
    }

    /// Start-up checks the index against the road graph without converting the graph: the same fingerprint.
    @Test func roadGraphFingerprintEqualsTheContractionGraphs() {
        let road = SyntheticCity.grid(rows: 12, cols: 15, seed: 4)
        #expect(road.contractionFingerprint == ContractionGraph(roadGraph: road).fingerprint)
        #expect(road.contractionFingerprint != SyntheticCity.grid(rows: 12, cols: 15, seed: 5).contractionFingerprint)
    }

    @Test func refusesAnotherMap() throws {
        let bytes = FastRouterIndex(graph: graph).fileBytes()
        let other = ContractionTestGraphs.random(nodes: 200, parts: 2, seed: 32)
        let error = #expect(throws: RoutingError.self) {
            try FastRouterIndex(fileBytes: bytes, expectedFingerprint: other.fingerprint)
        }
        #expect(error?.code == .wrongMap)
        #expect(error?.message.contains("different map") == true)
    }

    @Test func refusesAnotherVersionNonsenseAndTruncation() throws {
        var bytes = FastRouterIndex(graph: graph).fileBytes()
        let fingerprint = graph.fingerprint
        var versioned = bytes
        versioned[8] = 99
        let error = #expect(throws: RoutingError.self) {
            try FastRouterIndex(fileBytes: versioned, expectedFingerprint: fingerprint)
        }
        #expect(error?.code == .wrongVersion)
        #expect(error?.message.contains("version 99") == true)
        #expect(throws: RoutingError.self) {
            try FastRouterIndex(fileBytes: Array("hello".utf8), expectedFingerprint: fingerprint)
        }
        for cut in [10, 30, bytes.count / 2, bytes.count - 1] {
            #expect(throws: RoutingError.self) {
                try FastRouterIndex(fileBytes: Array(bytes.prefix(cut)), expectedFingerprint: fingerprint)
            }
        }
        // A corrupted index inside an array is caught by validation, not by a crash.
        for i in stride(from: 40, to: bytes.count, by: 997) { bytes[i] = 0xff }
        #expect(throws: RoutingError.self) { try FastRouterIndex(fileBytes: bytes, expectedFingerprint: fingerprint) }
    }
}
