import CabTestSupport
import Foundation
import Synchronization
import Testing

/// Issue 18's chaos run, short: three real `cab serve` nodes over one PostgreSQL and one Redis, `cab simulate
/// --chaos` playing riders and drivers on all of them while one node is paused (SIGSTOP) and another killed
/// (SIGKILL), and the third (`node-a`, never stopped) runs with its wall clock 30 s ahead; then the database's
/// checker must find nothing broken. The long run is `scripts/chaos-run.sh`.
@Suite("chaos run, short", .serialized)
struct ClusterChaosTests {
    @Test("a few hundred dispatches through a pause and a kill: no double offer or assignment, no deadline lost")
    func dispatchesThroughAPauseAndAKill() throws {
        let settings = #"{"dispatch": {"offer_seconds": 4, "batch_size": 2}, "trip": {"dispatch_seconds": 20}}"#
        // Node a's clock 30 s ahead, as the long run's third node: leases and timers are the database's (rules 1
        // and 13 in docs/dispatch-ownership.md), so a skewed node must not fire a timer early or late.
        let cluster = try ClusterServeTests.Cluster(
            count: 3, settings: { _ in settings }, environment: { i in i == 0 ? ["CAB_CLOCK_SKEW_MS": "30000"] : [:] })
        defer { cluster.stop() }
        #expect(cluster.settledShards())
        #expect(cluster.a.log.contains("this node's clock is off the database's"), "node a runs 30 s ahead")
        let map = try ImportedMap.dataDirectory("helsinki")
        let urls = cluster.nodes.map { "http://127.0.0.1:\($0.port)" }.joined(separator: ",")
        let outcome = Mutex<CabProcess.Result?>(nil)
        let finished = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            let result = try? CabProcess.run([
                "simulate", "--chaos", "--url", urls, "--data", map.path, "--trips", "150", "--drivers", "16",
                "--riders", "8", "--dispatch-seconds", "20",
            ])
            outcome.withLock { $0 = result }
            finished.signal()
        }
        func milliseconds() -> Int64 { Int64((Date().timeIntervalSince1970 * 1_000).rounded()) }
        Thread.sleep(forTimeInterval: 8)
        let paused = milliseconds()
        cluster.b.pause()  // frozen for 8 s: its leases run out meanwhile, and its writes after waking are refused
        Thread.sleep(forTimeInterval: 8)
        cluster.b.resume()
        let resumed = milliseconds()
        Thread.sleep(forTimeInterval: 6)
        let killed = milliseconds()
        cluster.c.kill()  // its shards are taken over once their leases run out
        #expect(finished.wait(timeout: .now() + 400) == .success, "the chaos run did not end in 400 s")
        let result = try #require(outcome.withLock { $0 })
        #expect(result.status == 0, "\(result.standardOutput)\n\(result.standardError.suffix(2_000))")
        #expect(result.standardOutput.contains("offers sent to a driver twice: 0"), "\(result.standardOutput)")
        // Every booking was made and ended: accepted (then cancelled by its rider) or no driver found in time.
        #expect(result.standardOutput.contains("bookings 150 (0 not made)"), "\(result.standardOutput)")
        #expect(result.standardOutput.contains("rider gave up 0"), "\(result.standardOutput)")
        // The faults as the long run's script writes them, for the timers' lateness and the takeovers (printed).
        let faults = FileManager.default.temporaryDirectory.appendingPathComponent("cab-chaos-faults-\(getpid()).tsv")
        defer { try? FileManager.default.removeItem(at: faults) }
        try "pause\tnode-b\t\(paused)\t\(resumed)\nkill\tnode-c\t\(killed)\t\(killed)\n".write(
            to: faults, atomically: true, encoding: .utf8)
        let check = try CabProcess.run([
            "check-dispatch", "--postgres", cluster.postgres.conninfo, "--faults", faults.path, "--dispatch-seconds",
            "20",
        ])
        #expect(check.status == 0, "\(check.standardOutput)\(check.standardError)")
        // Every shard the killed and the paused node held was taken over (by the others, or by the paused node
        // itself on waking): each fault's line counts its shards and none is left unowned.
        let lines = check.standardOutput.split(separator: "\n")
        for fault in ["takeover after SIGKILL", "takeover after SIGSTOP"] {
            let line = lines.first { $0.hasPrefix(fault) } ?? ""
            #expect(line.contains("over 1 faults, p50") && !line.contains("not taken over"), "\(check.standardOutput)")
        }
        #expect(lines.contains { $0.hasPrefix("offer timeouts: ") }, "\(check.standardOutput)")
        print(result.standardOutput)
        print(check.standardOutput)
    }
}
