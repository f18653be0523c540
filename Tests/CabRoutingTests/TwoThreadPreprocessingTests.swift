import CabRoutingBench
import Testing

@testable import CabRouting

/// Preprocessing on two threads (`TwoThreads`) builds exactly what one thread builds: both directions of the hub
/// labels (including where the budget stops them) and the precomputed climbs.
@Suite struct TwoThreadPreprocessingTests {
    /// Budgets from none to all: only the top node, a few ranks, most of the graph, every node.
    @Test(arguments: [1, 40, 300, 1_500, 5_000, 20_000, 10_000_000])
    func labelsAreTheSameOnTwoThreads(entryLimit: Int) throws {
        for graph in [
            ContractionGraph(roadGraph: SyntheticCity.grid(rows: 30, cols: 30, seed: 7)),
            ContractionTestGraphs.random(nodes: 300, seed: UInt64(entryLimit)),
        ] {
            let hierarchy = ContractionHierarchy(graph: graph)
            var sequential = HubLabelBuilder(hierarchy: hierarchy, entryLimit: entryLimit)
            sequential.usesTwoThreads = false
            let one = sequential.build()
            let two = HubLabelBuilder(hierarchy: hierarchy, entryLimit: entryLimit).build()
            #expect((one == nil) == (two == nil))
            guard let one, let two else { continue }
            #expect(one.lowestLabelledRank == two.lowestLabelledRank)
            #expect(one.entryCount <= entryLimit && two.entryCount <= entryLimit)
            for (a, b) in [(one.forward, two.forward), (one.backward, two.backward)] {
                #expect(a.first.array == b.first.array)
                #expect(a.hub.array == b.hub.array)
                #expect(a.duration.array == b.duration.array)
                #expect(a.length.array == b.length.array)
            }
            guard !one.coversEveryNode else { continue }
            let climbs = UpperLabelQuery(hierarchy: hierarchy, labels: one).precomputeClimbs()
            let parallel = UpperLabelQuery.precomputeClimbs(hierarchy: hierarchy, labels: one)
            for (a, b) in [(climbs.forward, parallel.forward), (climbs.backward, parallel.backward)] {
                #expect(a.first.array == b.first.array)
                #expect(a.entries.array == b.entries.array)
            }
        }
    }
}
