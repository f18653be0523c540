import CabRoutingBench
import Testing

@testable import CabRouting

/// The hierarchy contracted with a second thread estimating priorities (`PriorityHelper`), the labels built by two
/// workers (`HubLabelBuilder`) and the precomputed climbs built on two threads (`TwoThreads`, one direction each)
/// are those one thread builds.
@Suite struct TwoThreadPreprocessingTests {
    /// Graphs above `ContractionBuilder.twoThreadMinimumNodes` (a grid city, random graphs in several parts):
    /// every rank, upward arc and arc-table entry is the one-thread build's, in several builds (which thread takes
    /// which estimate changes from run to run).
    @Test(arguments: [1, 2, 3])
    func hierarchyIsTheSameOnTwoThreads(seed: UInt64) {
        for graph in [
            ContractionGraph(roadGraph: SyntheticCity.grid(rows: 60, cols: 60, seed: seed)),
            ContractionTestGraphs.random(nodes: 3_000, seed: seed),
        ] {
            #expect(graph.nodeCount >= ContractionBuilder.twoThreadMinimumNodes)
            let one = ContractionHierarchy(graph: graph, configuration: .init(usesTwoThreads: false))
            for _ in 0..<2 {
                var builder = ContractionBuilder(graph: graph, configuration: .init(usesTwoThreads: true))
                let two = builder.build()
                // The first epoch shares its work (given a second processor), the second (the rest) runs alone.
                #expect(builder.epochsSharing == (PriorityHelper.hasSecondProcessor ? 1 : 0))
                #expect(one.rankOf.array == two.rankOf.array)
                #expect(one.nodeAt.array == two.nodeAt.array)
                #expect(one.forwardFirst.array == two.forwardFirst.array)
                #expect(one.forwardHead.array == two.forwardHead.array)
                #expect(one.forwardWeight.array == two.forwardWeight.array)
                #expect(one.forwardArc.array == two.forwardArc.array)
                #expect(one.backwardFirst.array == two.backwardFirst.array)
                #expect(one.backwardHead.array == two.backwardHead.array)
                #expect(one.backwardWeight.array == two.backwardWeight.array)
                #expect(one.backwardArc.array == two.backwardArc.array)
                #expect(one.arcFirst.array == two.arcFirst.array)
                #expect(one.arcSecond.array == two.arcSecond.array)
                #expect(one.arcLength.array == two.arcLength.array)
            }
        }
    }

    /// One epoch sharing, one alone, then eight the faster way, then a trial again.
    @Test(arguments: [(1.0, 2.0, true), (2.0, 1.0, false)])
    func theScheduleKeepsTheFasterWay(sharingSeconds: Double, aloneSeconds: Double, keepsSharing: Bool) {
        var schedule = SharingSchedule()
        #expect(schedule.shares)
        schedule.finished(epochSeconds: sharingSeconds)
        #expect(!schedule.shares)
        schedule.finished(epochSeconds: aloneSeconds)
        for _ in 0..<SharingSchedule.epochsBetweenTrials {
            #expect(schedule.shares == keepsSharing)
            schedule.finished(epochSeconds: 1)
        }
        #expect(schedule.shares)
        #expect(schedule.epochsSharing + schedule.epochsAlone == 2 + SharingSchedule.epochsBetweenTrials)
        #expect(schedule.epochsSharing == (keepsSharing ? 9 : 1))
    }

    /// Budgets that stop the labels near the top, halfway, near the bottom, or not at all; the labels, the lowest
    /// labelled rank and every entry's hub, duration and length are those of one thread.
    @Test(arguments: [1, 40, 300, 1_500, 5_000, 20_000, 10_000_000])
    func labelsAreTheSameOnTwoThreads(entryLimit: Int) throws {
        for graph in [
            ContractionGraph(roadGraph: SyntheticCity.grid(rows: 30, cols: 30, seed: 7)),
            ContractionTestGraphs.random(nodes: 300, seed: UInt64(entryLimit)),
        ] {
            let hierarchy = ContractionHierarchy(graph: graph)
            let builder = HubLabelBuilder(hierarchy: hierarchy, entryLimit: entryLimit)
            let one = builder.build(onTwoThreads: false)
            // Several times: which worker takes which rank changes from run to run.
            for _ in 0..<3 {
                let two = builder.build(onTwoThreads: true)
                #expect(one?.lowestLabelledRank == two?.lowestLabelledRank)
                guard let one, let two else { continue }
                for (a, b) in [(one.forward, two.forward), (one.backward, two.backward)] {
                    #expect(a.first.array == b.first.array)
                    #expect(a.length.array == b.length.array)
                    #expect(a.entries.count == b.entries.count)
                    #expect(
                        (0..<a.entries.count).allSatisfy { a.hub[$0] == b.hub[$0] && a.duration[$0] == b.duration[$0] })
                }
            }
        }
    }

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
