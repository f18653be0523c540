/// Many-to-one and one-to-many durations by hub labels: the single end's labels go into a dense table indexed by
/// hub (timestamped, never cleared), then each other end scans its own labels against the table. With 20 drivers
/// and labels of ~50 hubs this is about a thousand table lookups, no priority queue at all.
///
/// Holds scratch memory: not `Sendable`; make one per thread.
final class ManyToOneQuery {
    let labels: HubLabels
    private let tableDuration: ContractionBuffer<UInt32>
    private let tableLength: ContractionBuffer<Float>
    private let tableStamp: ContractionBuffer<UInt32>
    private var stamp: UInt32 = 0

    init(labels: HubLabels) {
        self.labels = labels
        tableDuration = ContractionBuffer(repeating: 0, count: labels.nodeCount)
        tableLength = ContractionBuffer(repeating: 0, count: labels.nodeCount)
        tableStamp = ContractionBuffer(repeating: 0, count: labels.nodeCount)
    }

    /// Durations (and lengths) from each source to one target; `UInt32.max` when unreachable.
    /// - Complexity: O(label size) per seed.
    func durations(from sources: [[ContractionSeed]], to target: [ContractionSeed]) -> [(UInt32, Float)] {
        fill(labels.backward, target)
        return sources.map { scan(labels.forward, $0) }
    }

    /// Durations (and lengths) from one source to each target; `UInt32.max` when unreachable.
    /// - Complexity: O(label size) per seed.
    func durations(from source: [ContractionSeed], to targets: [[ContractionSeed]]) -> [(UInt32, Float)] {
        fill(labels.forward, source)
        return targets.map { scan(labels.backward, $0) }
    }

    /// Writes the seeds' labels, shifted by each seed's cost, into the table (keeping the smaller per hub).
    private func fill(_ direction: HubLabels.Direction, _ seeds: [ContractionSeed]) {
        stamp &+= 1
        if stamp == 0 {
            tableStamp.fill(0)
            stamp = 1
        }
        let hubs = direction.hub.base
        let durations = direction.duration.base
        let lengths = direction.length.base
        for seed in seeds {
            let r = Int(labels.rankOf[Int(seed.node)])
            var e = Int(direction.first[r])
            let end = Int(direction.first[r + 1])
            while e < end {
                let h = Int(hubs[e])
                let d = durations[e] &+ seed.durationMs
                if tableStamp[h] != stamp || d < tableDuration[h] {
                    tableStamp[h] = stamp
                    tableDuration[h] = d
                    tableLength[h] = lengths[e] + seed.lengthMeters
                }
                e += 1
            }
        }
    }

    /// The best path from the seeds' labels through the table.
    @inline(__always) private func scan(_ direction: HubLabels.Direction, _ seeds: [ContractionSeed]) -> (UInt32, Float) {
        let hubs = direction.hub.base
        let durations = direction.duration.base
        let stamps = tableStamp.base
        let table = tableDuration.base
        let cur = stamp
        var best = UInt32.max
        var bestEntry = -1
        var bestSeed = 0
        for (index, seed) in seeds.enumerated() {
            let r = Int(labels.rankOf[Int(seed.node)])
            var e = Int(direction.first[r])
            let end = Int(direction.first[r + 1])
            while e < end {
                let h = Int(hubs[e])
                if stamps[h] == cur {
                    let d = table[h] &+ durations[e] &+ seed.durationMs
                    if d < best {
                        best = d
                        bestEntry = e
                        bestSeed = index
                    }
                }
                e += 1
            }
        }
        if bestEntry < 0 { return (.max, 0) }
        let length = tableLength[Int(hubs[bestEntry])] + direction.length[bestEntry] + seeds[bestSeed].lengthMeters
        return (best, length)
    }
}
