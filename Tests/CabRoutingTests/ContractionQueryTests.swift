import CabRoutingBench
import Testing

@testable import CabRouting

@Suite struct ContractionQueryTests {
    /// Unpacking through the precomputed lists of short shortcuts gives, for every arc, the edges that splitting
    /// the arc into its halves gives, with the default limit and with one small enough that some shortcuts are
    /// split down to listed ones.
    @Test(arguments: [UnpackedShortcuts.defaultMaximumEdges, 4])
    func unpackedShortcutListsEqualSplittingIntoHalves(maximumEdges: Int) {
        let graph = ContractionGraph(roadGraph: SyntheticCity.grid(rows: 25, cols: 25, seed: 9))
        let hierarchy = ContractionHierarchy(graph: graph).withUnpackedShortcuts(maximumEdges: maximumEdges)
        func split(_ arc: Int32, into edges: inout [Int32]) {
            let first = hierarchy.arcFirst[Int(arc)]
            if first < 0 {
                edges.append(~first)
            } else {
                split(first, into: &edges)
                split(hierarchy.arcSecond[Int(arc)], into: &edges)
            }
        }
        var listed = 0
        var longer = 0
        for arc in 0..<Int32(hierarchy.arcCount) {
            var expected: [Int32] = []
            split(arc, into: &expected)
            var edges: [Int32] = []
            hierarchy.unpack(arc: arc, into: &edges)
            #expect(edges == expected, "arc \(arc)")
            if hierarchy.unpacked.start[Int(arc)] >= 0 { listed += 1 }
            if expected.count > maximumEdges { longer += 1 }
        }
        #expect(listed > 0)
        if maximumEdges == 4 { #expect(longer > 0) }
    }

    @Test(arguments: [1, 2, 3, 4] as [UInt64])
    func everyQueryEqualsDijkstra(seed: UInt64) {
        let graph = ContractionTestGraphs.random(nodes: 300, parts: 3, seed: seed)
        let hierarchy = ContractionHierarchy(graph: graph)
        let query = ContractionQuery(hierarchy: hierarchy)
        var rng = SeededGenerator(seed: seed &* 7919)
        var reachable = 0
        for _ in 0..<150 {
            let sources = ContractionTestGraphs.randomEndpoints(in: graph, source: true, using: &rng)
            let targets = ContractionTestGraphs.randomEndpoints(in: graph, source: false, using: &rng)
            let expected = ContractionTestGraphs.duration(graph, from: sources, to: targets)
            let meeting = query.run(from: sources, to: targets)
            #expect(meeting.durationMilliseconds == expected, "sources \(sources) targets \(targets)")
            guard expected != .max, meeting.durationMilliseconds == expected else { continue }
            reachable += 1
            // The unpacked path is connected, runs from the chosen source seed to the chosen target seed, and
            // its edges add up to the duration.
            let path = query.path(of: meeting, sources: sources, targets: targets)
            var node = sources[path.sourceSeed].node
            var total = sources[path.sourceSeed].durationMilliseconds + targets[path.targetSeed].durationMilliseconds
            for id in path.edges {
                let edge = graph.edges[Int(id)]
                #expect(edge.from == node)
                node = edge.to
                total += edge.durationMilliseconds
            }
            #expect(node == targets[path.targetSeed].node)
            #expect(total == expected)
        }
        #expect(reachable >= 20)
    }
}
