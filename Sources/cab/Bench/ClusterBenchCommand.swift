import CabBench
import CabLoopback
import Foundation

/// `cab bench cluster`: three `cab serve --postgres --redis` nodes against one node, in one run: a fix posted to
/// node A reaching a rider's stream on node C, a fix on A seen by `nearby` on B, with background drivers posting
/// to all three, and what Redis spent on them.
enum ClusterBenchCommand {
    static let flags: [Arguments.Flag] = [
        .init(name: "data", valueName: "DIR", help: "imported data directory (default $CAB_DATA or data/cab)"),
        .init(name: "fixes", valueName: "N", help: "fixes measured each way (default 1000)"),
        .init(
            name: "background", valueName: "N",
            help: "background drivers, one fix per 20 s each, spread over the three nodes (default 2000; 0 for none)"),
        .init(name: "json", valueName: nil, help: "print one JSON object"),
    ]

    static let usage = """
        usage: cab bench cluster [--data DIR] [--fixes N] [--background N] [--json]

        Starts PostgreSQL and redis-server on Unix sockets in temporary folders (PostgreSQL as the `postgres` user
        when run as root), three nodes `cab serve --postgres URL --redis URL --node-id ID` (A, B, C) and, as the
        baseline, one node on its own (`cab serve`, SQLite), each on a scratch copy of DIR. N background drivers
        post one fix per 20 s each to A, B and C in turn (`cab simulate --lean`'s fleet) for the whole run. Then:

        1. A driver on A and on the single node each accepts a rider's trip; the rider's stream
           (GET /v1/bookings/{id}/stream) is followed on C and on A, and on the single node. N fixes each: a fix
           posted to A, timed from before the POST to the `position` event carrying it on C's and A's stream,
           and, in the same turn, a fix posted to the single node timed to its own stream (a random pause before
           each turn, so the fixes fall at every point of the trips' 500 ms position tick).
        2. N more drivers on A, each posting one fix timed to `GET /v1/drivers/nearby` on A showing it, then a second
           fix 22 m on timed to B's nearby showing it.
        3. The background fixes/s accepted after every driver's first fix, against drivers / 20 s.
        4. Redis `INFO memory` used_memory after the background drivers' first fixes minus before they signed up,
           per driver; Redis CPU seconds (used_cpu_sys + used_cpu_user) over the run.

        Prints p50/p99 of each measure side by side; --json prints one object.

        \(Arguments.describe(flags))
        """

    static func run(_ arguments: [String]) -> Never {
        let args = Arguments(arguments, flags: flags, usage: usage)
        let data = dataDirectory(args)
        let fixes = args.integer("fixes", default: 1000, in: 1...100_000)
        let background = args.integer("background", default: 2000, in: 0...1_000_000)
        let r: ClusterBenchRun.Result
        do {
            r = try ClusterBenchRun(dataDirectory: data, fixes: fixes, backgroundDrivers: background).run {
                Console.error($0)
            }
        } catch {
            Console.fail(error.message, code: 70)
        }
        Console.line(args.has("json") ? BenchFormat.jsonLine(json(r)) : text(r).joined(separator: "\n"))
        exitProcess(0)
    }

    static func text(_ r: ClusterBenchRun.Result) -> [String] {
        func ms(_ s: LatencySamples) -> String {
            String(format: "p50 %7.1f ms  p99 %7.1f ms", s.percentile(50) ?? Double.nan, s.percentile(99) ?? Double.nan)
        }
        func missed(_ n: Int) -> String { n == 0 ? "" : "  (\(n) not seen within 10 s)" }
        var lines = [
            "cab bench cluster (\(BenchFormat.buildMode) build, \(r.fixes) fixes each way, 3 nodes + PostgreSQL + "
                + "Redis and 1 single node on this box, \(r.backgroundDrivers) background drivers)",
            "fix on 1 node -> rider's stream on that node     \(ms(r.singleToStream))\(missed(r.singleMissed))",
            "fix on A -> rider's stream on A (3 nodes)         \(ms(r.clusterToStreamOnA))\(missed(r.missedOnA))",
            "fix on A -> rider's stream on C (3 nodes)         \(ms(r.clusterToStreamOnC))\(missed(r.missedOnC))",
            "  (the trip is followed by node \(r.tripOwner ?? "?"), which owns its dispatch shard)",
            "fix on A -> nearby on A                           \(ms(r.nearbyOnA))",
            "fix on A -> nearby on B (over Redis)              \(ms(r.nearbyOnB))",
        ]
        if let f = r.fleet {
            lines.append(
                String(
                    format: "background: %d drivers, %.0f fixes/s accepted of %.0f expected (%@), "
                        + "%d uploads failed, %d late; upload p50 %.1f ms p99 %.1f ms",
                    f.drivers, f.steadyFixesPerSecond, f.expectedFixesPerSecond,
                    r.keptUp ? "kept up" : "did NOT keep up", f.failedUploads, f.lateUploads,
                    f.uploadP50Milliseconds ?? Double.nan, f.uploadP99Milliseconds ?? Double.nan))
        }
        let memory = r.redisBytesPerDriver.map { String(format: "%.0f bytes per driver", $0) } ?? "n/a (no drivers)"
        lines.append(
            String(
                format: "Redis: used_memory %@ -> %@ (%@); %.2f CPU seconds over %.0f s of run (%.0f%% of a core)",
                BenchFormat.mebibytes(Int(r.redisMemoryBefore)), BenchFormat.mebibytes(Int(r.redisMemoryAfter)),
                memory, r.redisCPUSeconds, r.runSeconds, 100 * r.redisCPUSeconds / max(0.001, r.runSeconds)))
        return lines
    }

    static func json(_ r: ClusterBenchRun.Result) -> [String: Any] {
        func p(_ s: LatencySamples, _ q: Double) -> Any { s.percentile(q).map { BenchFormat.round($0, 2) } ?? NSNull() }
        var object: [String: Any] = [
            "build": BenchFormat.buildMode, "fixes": r.fixes, "background_drivers": r.backgroundDrivers,
            "single_node_stream_p50_ms": p(r.singleToStream, 50), "single_node_stream_p99_ms": p(r.singleToStream, 99),
            "a_to_stream_on_a_p50_ms": p(r.clusterToStreamOnA, 50),
            "a_to_stream_on_a_p99_ms": p(r.clusterToStreamOnA, 99),
            "a_to_stream_on_c_p50_ms": p(r.clusterToStreamOnC, 50),
            "a_to_stream_on_c_p99_ms": p(r.clusterToStreamOnC, 99),
            "stream_missed": ["single": r.singleMissed, "a": r.missedOnA, "c": r.missedOnC],
            "trip_owner": r.tripOwner ?? NSNull(),
            "nearby_on_a_p50_ms": p(r.nearbyOnA, 50), "nearby_on_a_p99_ms": p(r.nearbyOnA, 99),
            "a_to_nearby_on_b_p50_ms": p(r.nearbyOnB, 50), "a_to_nearby_on_b_p99_ms": p(r.nearbyOnB, 99),
            "redis_used_memory_before": r.redisMemoryBefore, "redis_used_memory_after": r.redisMemoryAfter,
            "redis_bytes_per_driver": r.redisBytesPerDriver.map { BenchFormat.round($0, 0) } ?? NSNull(),
            "redis_cpu_seconds": BenchFormat.round(r.redisCPUSeconds, 2),
            "run_seconds": BenchFormat.round(r.runSeconds, 1),
        ]
        if let f = r.fleet {
            object["background_fixes_per_second"] = BenchFormat.round(f.steadyFixesPerSecond, 1)
            object["background_expected_fixes_per_second"] = BenchFormat.round(f.expectedFixesPerSecond, 1)
            object["background_kept_up"] = r.keptUp
            object["background_failed_uploads"] = f.failedUploads
            object["background_late_uploads"] = f.lateUploads
        }
        return object
    }
}
