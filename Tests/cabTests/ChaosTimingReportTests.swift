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
                + " after a fault 2, max 12500 ms from when due (1 later than 12000 ms); from the last fault on its"
                + " shard's owner: max 12500 ms, 1 later than 12000 ms (the goal: none)")
        #expect(
            report.lines[1]
                == "dispatch timeouts: 0 fired; calm 0; after a fault 0; 2 given up earlier, every batch asked")
    }

    @Test func aTimerHeldUpByTwoFaultsInARowIsCountedFromTheSecond() {
        func grant(_ owner: String, _ at: Int64) -> DispatchTimings.Grant {
            DispatchTimings.Grant(shard: 5, owner: owner, acquiredMilliseconds: at)
        }
        // node-1 owns shard 5 and is paused at 100 s; node-2 takes the shard at 110.5 s and is killed at 111 s;
        // node-3 takes it at 121 s and fires the timer due at 101 s at 122 s: 21 s late from when due, 11 s from the kill.
        let grants = [grant("node-1", 1_000), grant("node-2", 110_500), grant("node-3", 121_000)]
        let faults = [
            ChaosFault(kind: "pause", node: "node-1", startMilliseconds: 100_000, endMilliseconds: 120_000),
            ChaosFault(kind: "kill", node: "node-2", startMilliseconds: 111_000, endMilliseconds: 111_000),
            // A kill of a node that did not own the shard then: not this timer's fault.
            ChaosFault(kind: "kill", node: "node-3", startMilliseconds: 115_000, endMilliseconds: 115_000),
        ]
        let late = Self.timer(due: 101_000, late: 21_000)
        #expect(ChaosTimingReport.lateAfterLastFault(late, grants: grants, faults: faults, bound: 12_000) == 11_000)
        // Only the pause: counted from when due (the pause began before it).
        #expect(
            ChaosTimingReport.lateAfterLastFault(late, grants: grants, faults: [faults[0]], bound: 12_000) == 21_000)
        // A restart of PostgreSQL strikes every shard.
        let postgres = ChaosFault(kind: "postgres", node: nil, startMilliseconds: 118_000, endMilliseconds: 121_000)
        #expect(
            ChaosTimingReport.lateAfterLastFault(late, grants: grants, faults: faults + [postgres], bound: 12_000)
                == 4_000)
        // A fault that began more than the bound before the timer came due is not counted.
        let early = Self.timer(due: 125_000, late: 14_000)
        #expect(ChaosTimingReport.lateAfterLastFault(early, grants: grants, faults: faults, bound: 12_000) == 14_000)
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

    /// A clean stop (SIGTERM) is reported on a line of its own, against the hand-over goal of a second.
    @Test func aStopsHandOverIsReportedOnItsOwnLine() {
        let grants = [
            DispatchTimings.Grant(shard: 0, owner: "node-1", acquiredMilliseconds: 1_000),
            DispatchTimings.Grant(shard: 1, owner: "node-1", acquiredMilliseconds: 1_000),
            DispatchTimings.Grant(shard: 0, owner: "node-2", acquiredMilliseconds: 100_300),
            DispatchTimings.Grant(shard: 1, owner: "node-3", acquiredMilliseconds: 100_500),
        ]
        let stop = ChaosFault(kind: "stop", node: "node-1", startMilliseconds: 100_000, endMilliseconds: 100_200)
        let timings = DispatchTimings(offerTimeouts: [], dispatchTimeouts: [], earlyGiveUps: 0, grants: grants)
        let report = ChaosTimingReport(timings: timings, faults: [stop], leaseMilliseconds: 10_000)
        #expect(report.lines.contains { $0.hasPrefix("takeover after SIGKILL: 0 shards over 0 faults") })
        #expect(
            report.lines.last
                == "hand-over after SIGTERM: 2 shards over 1 faults, p50 300 ms, p99 500 ms, max 500 ms"
                + " (goal under 1,000 ms)")
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
