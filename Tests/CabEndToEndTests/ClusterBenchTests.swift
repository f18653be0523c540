import CabTestSupport
import Foundation
import Testing

/// `cab bench cluster` (issue 17's speed figures) end to end: it starts PostgreSQL, Redis, three nodes and a single
/// node itself, and prints each measure's line; a few fixes and a small background fleet, no figure checked.
@Suite struct ClusterBenchTests {
    @Test func printsEveryMeasureForThreeNodesAndOneAndExitsZero() throws {
        let data = try ImportedMap.freshCopy("helsinki")
        defer { try? FileManager.default.removeItem(at: data) }
        let run = try CabProcess.run([
            "bench", "cluster", "--data", data.path, "--fixes", "4", "--background", "30",
        ])
        let out = run.standardOutput
        #expect(run.status == 0, "\(out)\(run.standardError)")
        for line in [
            "fix on 1 node -> rider's stream on that node", "fix on A -> rider's stream on A (3 nodes)",
            "fix on A -> rider's stream on C (3 nodes)", "fix on A -> nearby on B (over Redis)",
            "background: 30 drivers", "Redis: used_memory",
        ] {
            #expect(out.contains(line), "\(line): \(out)")
        }
        // Every fix reached every stream: none is reported missing.
        #expect(!out.contains("not seen"), "\(out)")
        #expect(out.contains("(the trip is followed by node bench-"), "\(out)")
    }
}
