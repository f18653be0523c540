/// Times decoding a PBF file, for `cab bench` to print (benchmarks print figures; tests never time).
public enum PBFDecodeBenchmark {
    /// What one benchmark run measured.
    public struct Result: Sendable, Equatable {
        /// The file decoded.
        public var path: String
        /// Its size in bytes.
        public var fileBytes: Int
        /// What each run delivered.
        public var summary: PBFReadSummary
        /// The median wall time of one full decode, in seconds.
        public var medianSeconds: Double
        /// The fastest run, in seconds.
        public var bestSeconds: Double
        /// How many runs were timed.
        public var runs: Int
    }

    /// Decodes `path` `runs` times with `options` into a handler that touches every element, and times it.
    /// - Complexity: O(runs × file size).
    public static func run(path: String, options: PBFReader.Options = .all, runs: Int = 5) throws -> Result {
        precondition(runs > 0, "a benchmark needs at least one run")
        let reader = try PBFReader(path: path)
        let clock = ContinuousClock()
        var durations: [Duration] = []
        var summary = PBFReadSummary()
        for _ in 0..<runs {
            var sink = ChecksumHandler()
            let start = clock.now
            summary = try reader.read(into: &sink, options: options)
            durations.append(clock.now - start)
        }
        let seconds = durations.sorted().map {
            Double($0.components.seconds) + Double($0.components.attoseconds) / 1e18
        }
        return Result(
            path: path, fileBytes: reader.fileSize, summary: summary, medianSeconds: seconds[seconds.count / 2],
            bestSeconds: seconds[0], runs: runs)
    }
}

/// A handler that folds every element into a checksum, so the optimiser cannot skip the decoding.
private struct ChecksumHandler: OSMElementHandler {
    var checksum: Int64 = 0

    mutating func handle(_ node: OSMNode) throws { checksum &+= node.id &+ Int64(node.tags.count) }
    mutating func handle(_ way: OSMWay) throws { checksum &+= way.id &+ Int64(way.nodeIDs.count) }
    mutating func handle(_ relation: OSMRelation) throws { checksum &+= relation.id &+ Int64(relation.members.count) }
}
