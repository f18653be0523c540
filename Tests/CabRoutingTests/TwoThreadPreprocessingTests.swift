import CabRoutingBench
import Testing

@testable import CabRouting

/// The precomputed climbs built on two threads (`TwoThreads`, one direction each) are those one thread builds.
@Suite struct TwoThreadPreprocessingTests {
    /// Budgets that leave a few ranks, most of the graph or only its bottom unlabelled.
    @Test(arguments: [40, 300, 1_500, 5_000, 20_000])
    func climbsAreTheSameOnTwoThreads(entryLimit: Int) throws {
        for graph in [
            ContractionGraph(roadGraph: SyntheticCity.grid(rows: 30, cols: 30, seed: 7)),
            ContractionTestGraphs.random(nodes: 300, seed: UInt64(entryLimit)),
        ] {
            let hierarchy = ContractionHierarchy(graph: graph)
            guard let labels = HubLabels(hierarchy: hierarchy, entryLimit: entryLimit, usesTwoThreads: false),
                !labels.coversEveryNode
            else { continue }
            let one = try #require(labels.climbs)
            let two = UpperLabelQuery.precomputeClimbs(hierarchy: hierarchy, labels: labels)
            for (a, b) in [(one.forward, two.forward), (one.backward, two.backward)] {
                #expect(a.first.array == b.first.array)
                #expect(a.entries.array == b.entries.array)
            }
        }
    }
}
