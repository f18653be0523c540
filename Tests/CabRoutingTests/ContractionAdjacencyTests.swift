import CabGeo
import Testing

@testable import CabRouting

/// The contraction's arc pool (`ContractionAdjacency`) against a plain dictionary of arc lists, through enough
/// growth and removal that it compacts several times, into its spare pool and back.
@Suite struct ContractionAdjacencyTests {
    @Test func arcsSurviveRepeatedCompactions() {
        let nodeCount = 40_000
        var adjacency = ContractionAdjacency(nodeCount: nodeCount)
        adjacency.reserve(arcs: 1 << 21)  // room enough that only a compaction moves the pool
        var model: [Int32: [Int32: UInt32]] = [:]
        var random = SplitMix64(seed: 7)
        var alive = Array(0..<Int32(nodeCount))
        var poolsSeen: Set<UInt> = []
        // Rounds of arcs added to random live nodes (their slots move to the end of the pool as they fill), then a
        // fifth of the live nodes dropped: over 2^16 abandoned slots each round, which compacts.
        for round in 0..<6 {
            for _ in 0..<60_000 {
                let node = alive[Int(random.next() % UInt64(alive.count))]
                let other = Int32(random.next() % UInt64(nodeCount))
                guard model[node]?[other] == nil else { continue }
                let weight = UInt32(truncatingIfNeeded: random.next() % 1_000_000)
                adjacency.append(.init(other: other, weight: weight, arc: Int32(round)), to: node)
                model[node, default: [:]][other] = weight
            }
            for _ in 0..<(alive.count / 5) {
                let k = Int(random.next() % UInt64(alive.count))
                let node = alive.remove(at: k)
                adjacency.removeAll(at: node)
                model[node] = nil
            }
            // A few single arcs removed too.
            for node in alive.prefix(100) {
                guard let other = model[node]?.keys.min() else { continue }
                adjacency.remove(other, at: node)
                model[node]?[other] = nil
            }
            poolsSeen.insert(adjacency.withView { UInt(bitPattern: $0.pool) })
            for node in alive {
                let arcs = adjacency.arcs(node)
                #expect(arcs.count == (model[node]?.count ?? 0))
                for arc in arcs { #expect(model[node]?[arc.other] == arc.weight) }
                if let other = model[node]?.keys.first { #expect(adjacency.index(of: other, at: node) != nil) }
            }
        }
        // It compacted several times, and the two pools took turns rather than a new one each time.
        #expect(adjacency.compactions >= 3)
        #expect(poolsSeen.count == 2)
    }
}

/// `UpperLabelQuery.sortByRank`, which orders every climb's border and settled lists, against the standard sort.
@Suite struct ClimbListSortTests {
    @Test(arguments: [0, 1, 2, 7, 64, 65, 300])
    func sortsByRankThenDuration(count: Int) {
        var random = SplitMix64(seed: UInt64(count))
        let prefix = (0..<3).map {
            UpperLabelQuery.BorderEntry(rank: Int32($0), durationMilliseconds: 9, lengthMeters: 0)
        }
        var entries = prefix
        for _ in 0..<count {
            entries.append(
                .init(
                    rank: Int32(random.next() % 20), durationMilliseconds: UInt32(random.next() % 5),
                    lengthMeters: Float(random.next() % 100)))
        }
        var sorted = entries
        UpperLabelQuery.sortByRank(&sorted, from: prefix.count)
        let expected =
            prefix
            + entries.dropFirst(prefix.count).sorted {
                $0.rank < $1.rank || ($0.rank == $1.rank && $0.durationMilliseconds < $1.durationMilliseconds)
            }
        // Ranks and durations in order (ties in both may come in either order: compare what orders them).
        #expect(sorted.map(\.rank) == expected.map(\.rank))
        #expect(sorted.map(\.durationMilliseconds) == expected.map(\.durationMilliseconds))
        // Nothing lost or made up.
        #expect(sorted.map(\.lengthMeters).sorted() == entries.map(\.lengthMeters).sorted())
    }
}
