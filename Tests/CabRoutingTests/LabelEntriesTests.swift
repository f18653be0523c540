import Testing

@testable import CabRouting

/// Hub-label entries packed in 6 bytes (`LabelEntries`): what goes in comes out, and labels stop where an entry
/// could not hold them.
@Suite struct LabelEntriesTests {
    /// Every entry reads back its hub and duration, at both ends of both ranges and for the last entry (whose
    /// 8-byte load reaches into the padding).
    @Test func entriesReadBackWhatWasPacked() {
        let lowest: Int32 = 123_456
        var rng = SeededGenerator(seed: 5)
        var expected: [(hub: Int32, duration: UInt32)] = [
            (lowest, 0), (lowest + Int32(LabelEntries.maxHubOffset), LabelEntries.maxDuration),
            (lowest, LabelEntries.maxDuration), (lowest + Int32(LabelEntries.maxHubOffset), 0),
        ]
        for _ in 0..<1_000 {
            expected.append(
                (
                    lowest + Int32.random(in: 0...Int32(LabelEntries.maxHubOffset), using: &rng),
                    UInt32.random(in: 0...LabelEntries.maxDuration, using: &rng)
                ))
        }
        expected.append((lowest + Int32(LabelEntries.maxHubOffset), LabelEntries.maxDuration))
        let entries = LabelEntries(count: expected.count, lowest: lowest) { expected[$0] }
        #expect(entries.count == expected.count)
        #expect(expected.indices.allSatisfy { entries.hub[$0] == expected[$0].hub })
        #expect(expected.indices.allSatisfy { entries.duration[$0] == expected[$0].duration })
    }

    /// On a graph whose upward durations pass 74 hours (every duration ×10,000), the labels stop above the first
    /// label that an entry could not hold, and every query still equals Dijkstra.
    @Test func labelsStopAboveDurationsAnEntryCannotHold() throws {
        let plain = ContractionTestGraphs.random(nodes: 250, parts: 1, seed: 31)
        let slow = ContractionGraph(
            nodeCount: plain.nodeCount,
            edges: plain.edges.map { edge in
                var edge = edge
                edge.durationMilliseconds *= 10_000
                return edge
            })
        let index = FastRouterIndex(graph: slow, configuration: .init())
        let labels = try #require(index.labels)
        #expect(!labels.coversEveryNode)
        let router = FastRouter(index: index)
        var rng = SeededGenerator(seed: 32)
        var longest: UInt32 = 0
        for _ in 0..<100 {
            let source = ContractionTestGraphs.randomEndpoints(in: slow, source: true, using: &rng)
            let target = ContractionTestGraphs.randomEndpoints(in: slow, source: false, using: &rng)
            let expected = ContractionTestGraphs.duration(slow, from: source, to: target)
            #expect(router.duration(from: source, to: target)?.durationMilliseconds ?? .max == expected)
            if expected != .max { longest = max(longest, expected) }
        }
        #expect(longest > LabelEntries.maxDuration, "the graph is not slow enough to test anything")
    }
}
