import CabBench
import CabStore
import Testing

/// The chaos run's timing report: timers counted as calm or after a fault by when they came due, the bound a
/// timer after a fault is held to, and takeovers measured from a fault to each of its node's shards' next grant.
@Suite struct ChaosTimingReportTests {
    static func timer(due: Int64, late: Int64) -> DispatchTimings.Timer {
        DispatchTimings.Timer(booking: "b\(due)", dueMilliseconds: due, lateMilliseconds: late)
    }

    @Test func timersAreCalmOrAfterAFaultByWhenTheyCameDue() {
        // A kill at 100 s: timers due from 99 s until 112 s (the 10 s lease and 2 s) count as after it.
        let kill = ChaosFault(kind: "kill", node: "node-1", startMilliseconds: 100_000, endMilliseconds: 100_000)
        let timings = DispatchTimings(
            offerTimeouts: [
                Self.timer(due: 50_000, late: 100), Self.timer(due: 60_000, late: 300),
                Self.timer(due: 101_000, late: 9_500), Self.timer(due: 111_000, late: 12_500),
                Self.timer(due: 130_000, late: 200),
            ],
            dispatchTimeouts: [], earlyGiveUps: 2, grants: [])
        let report = ChaosTimingReport(timings: timings, faults: [kill], leaseMilliseconds: 10_000)
        #expect(report.afterFaultBoundMilliseconds == 12_000)
        #expect(
            report.lines[0]
                == "offer timeouts: 5 fired; calm 3, late p50 200 ms, p99 300 ms, max 300 ms (goal p99 under 1,000 ms);"
                + " after a fault 2, max 12500 ms, 1 later than 12000 ms (the goal: none)")
        #expect(
            report.lines[1]
                == "dispatch timeouts: 0 fired; calm 0; after a fault 0; 2 given up earlier, every batch asked")
    }

    @Test func aTakeoverIsTheNextGrantOfEachShardTheFaultsNodeHeld() {
        func grant(_ shard: Int, _ owner: String, _ at: Int64) -> DispatchTimings.Grant {
            DispatchTimings.Grant(shard: shard, owner: owner, acquiredMilliseconds: at)
        }
        let grants = [
            grant(0, "node-1", 1_000), grant(1, "node-1", 1_000), grant(2, "node-2", 1_000),
            grant(0, "node-2", 111_000), grant(1, "node-3", 112_500), grant(2, "node-2", 115_000),
        ]
        let kill = ChaosFault(kind: "kill", node: "node-1", startMilliseconds: 100_000, endMilliseconds: 100_000)
        let (delays, never) = ChaosTimingReport.takeovers(after: [kill], grants: grants)
        #expect(delays.sorted() == [11_000, 12_500] && never == 0)
        // node-2's shard 2 was granted again 15 s after its pause began; node-3's shard 1 never was after its pause.
        let pauses = [
            ChaosFault(kind: "pause", node: "node-2", startMilliseconds: 100_000, endMilliseconds: 120_000),
            ChaosFault(kind: "pause", node: "node-3", startMilliseconds: 200_000, endMilliseconds: 220_000),
        ]
        let (afterPauses, neverAfterPauses) = ChaosTimingReport.takeovers(after: pauses, grants: grants)
        #expect(afterPauses == [15_000] && neverAfterPauses == 1)
    }

    @Test func theFaultsFileIsReadAndABadLineIsNamed() throws {
        let text = "# the run's faults\nkill\tnode-2\t1000\t1000\npause node-1 2000 22000\nredis\t-\t3000\t5000\n\n"
        let faults = try ChaosFault.parse(text).get()
        #expect(faults.map(\.kind) == ["kill", "pause", "redis"])
        #expect(faults[2].node == nil && faults[1].endMilliseconds == 22_000)
        guard case .failure(let error) = ChaosFault.parse("kill node-2 soon 1000") else {
            Issue.record("a start that is not a number was read")
            return
        }
        #expect(error.line == 1 && error.text == "kill node-2 soon 1000")
    }
}
