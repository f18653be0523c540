import CabLoopback

#if canImport(Glibc)
    import CabGeo
    import Glibc
#endif

/// Latencies in milliseconds collected during a run, bounded in memory by reservoir sampling.
///
/// Keeps every sample up to `capacity`, then a uniform random subset of that size (Algorithm R with a fixed seed),
/// so percentiles stay representative of a long run without growing memory.
package struct LatencySamples {
    /// The most samples kept.
    package let capacity: Int
    /// How many samples were offered.
    private(set) var count = 0
    private var kept: [Double] = []
    private var rng = SplitMix64(seed: 0x5EED)

    package init(capacity: Int = 1 << 20) {
        precondition(capacity > 0, "a latency reservoir needs room for one sample")
        self.capacity = capacity
    }

    /// Offers one latency.
    package mutating func add(_ milliseconds: Double) {
        count += 1
        if kept.count < capacity {
            kept.append(milliseconds)
        } else {
            let slot = Int(rng.next() % UInt64(count))
            if slot < capacity { kept[slot] = milliseconds }
        }
    }

    /// The `p`-th percentile (0...100) by nearest rank, nil when empty.
    package func percentile(_ p: Double) -> Double? {
        kept.isEmpty ? nil : nearestRankPercentile(kept, p)
    }
}

/// The `p`-th percentile (0...100) of `values` by nearest rank; 0 when empty.
package func nearestRankPercentile(_ values: [Double], _ p: Double) -> Double {
    guard !values.isEmpty else { return 0 }
    let sorted = values.sorted()
    let rank = Int((p / 100 * Double(sorted.count)).rounded(.up))
    return sorted[min(max(rank, 1), sorted.count) - 1]
}

/// The wall clock (`CLOCK_REALTIME`) in milliseconds since the Unix epoch, with sub-millisecond fraction; the
/// server's event timestamps are compared against it.
package func wallClockMilliseconds() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_REALTIME, &ts)
    return Double(ts.tv_sec) * 1000 + Double(ts.tv_nsec) / 1_000_000
}
