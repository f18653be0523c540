import CabBench
import CabGeo
import CabLoopback
import CabPlacesBench
import CabRoutingBench
import Foundation

/// `cab bench api`: parses flags, runs `APIBenchmark`, prints the figures (or one JSON object with `--json`).
enum APIBenchCommand {
    static let flags: [Arguments.Flag] = [
        .init(name: "data", valueName: "DIR", help: "imported data directory (default $CAB_DATA or data/cab)"),
        .init(name: "duration", valueName: "S", help: "seconds per load (default 10)"),
        .init(name: "connections", valueName: "N", help: "open connections (default 64)"),
        .init(name: "threads", valueName: "N", help: "wrk threads (default 2)"),
        .init(name: "riders", valueName: "N", help: "rider accounts the bookings are spread over (default 16)"),
        .init(name: "pickup", valueName: "LAT,LON", help: "pickup (default: a road node at the map's centre)"),
        .init(name: "dropoff", valueName: "LAT,LON", help: "dropoff (default: a road node ~1.5 km north-east)"),
        .init(name: "server-log", valueName: "FILE", help: "where the server's stderr goes (default /dev/null)"),
        .init(name: "server-threads", valueName: "N", help: "`cab serve --threads N` (default: serve's own default)"),
        .init(name: "json", valueName: nil, help: "print one JSON object"),
        .init(
            name: "postgres", valueName: "URL",
            help: "also run the load against `cab serve --postgres URL` and print both stores side by side "
                + "(the database should be empty: use a fresh one)"),
        .init(
            name: "trips", valueName: nil,
            help: "instead: /healthz p99 and SSE heartbeat delay while riders and drivers play whole trips, "
                + "handlers inline (--handler-threads 0) then on the pool (default --duration 20)"),
        .init(
            name: "pairs", valueName: "N", help: "with --trips: rider/driver pairs playing trips at once (default 32)"),
        .init(
            name: "serve-with", valueName: "PATH",
            help: "the cab binary that serves (another build, under this build's load: old and new side by side)"),
        .init(
            name: "load-niceness", valueName: "N",
            help: "with --trips: how far below the server and the /healthz probe the riders' and drivers' threads "
                + "run, as a nice increment (default 10: they stand in for phones, which do not share the "
                + "server's cores; 0: same priority)"),
    ]

    static let usage = """
        usage: cab bench api [--data DIR] [--duration S] [--json]

        Starts `cab serve` on a scratch copy of DIR (links to the map, a fresh store) on 127.0.0.1, measures
        GET /healthz requests/s (the server's ceiling) with wrk, then creates riders and measures durable
        bookings/s and p50/p99 latency (POST /v1/bookings, a unique Idempotency-Key per request).
        Targets (issue 5): at least 3,000 bookings/s and p99 under 20 ms at 64 connections. Printed, never asserted.

        \(Arguments.describe(flags))
        """

    /// Central Helsinki (the Makefile's default map), when the data directory has no road graph to pick from.
    static let fallbackPair = (
        Coordinate(latitude: 60.1699, longitude: 24.9384), Coordinate(latitude: 60.1841, longitude: 24.9501)
    )

    static func run(_ arguments: [String]) -> Never {
        let args = Arguments(arguments, flags: flags, usage: usage)
        guard args.positional.isEmpty else { Console.fail("bench api takes no positional arguments\n\n\(usage)") }
        let data = dataDirectory(args)
        let central = MapPoints.centralPair(dataDirectory: data) ?? fallbackPair
        if args.has("trips") { runTrips(args, data: data, central: central) }
        var configuration = APIBenchmark.Configuration(
            dataDirectory: data,
            durationSeconds: args.integer("duration", default: 10, in: 1...3600),
            connections: args.integer("connections", default: 64, in: 1...10_000),
            wrkThreads: args.integer("threads", default: 2, in: 1...64),
            riders: args.integer("riders", default: 16, in: 1...10_000),
            pickup: args.value("pickup").map { Arguments.parseCoordinate($0, what: "--pickup") } ?? central.0,
            dropoff: args.value("dropoff").map { Arguments.parseCoordinate($0, what: "--dropoff") } ?? central.1,
            serverLog: args.value("server-log") ?? "/dev/null",
            serverThreads: args.value("server-threads").map { _ in
                args.integer("server-threads", default: 32, in: 1...512)
            })
        configuration.serverExecutable = serverExecutable(args)
        if !FileManager.default.fileExists(atPath: configuration.dataDirectory) {
            Console.error(
                "cab: \(configuration.dataDirectory) does not exist (run `make run` or `cab import`); "
                    + "the server starts without a map")
        }
        var runs: [(store: String, configuration: APIBenchmark.Configuration)] = [("sqlite", configuration)]
        if let url = args.value("postgres") {
            var onPostgres = configuration
            onPostgres.postgresURL = url
            runs.append(("postgresql", onPostgres))
        }
        for run in runs {
            let result: APIBenchmark.Result
            do {
                result = try APIBenchmark(configuration: run.configuration).run()
            } catch {
                Console.fail(error.message, code: 70)
            }
            if args.has("json") {
                Console.line(runs.count == 1 ? json(result) : "{\"store\":\"\(run.store)\",\"result\":\(json(result))}")
            } else {
                Console.line(runs.count == 1 ? text(result) : "store: \(run.store)\n" + text(result))
            }
        }
        exitProcess(0)
    }

    /// `--serve-with PATH`, checked: an executable file.
    static func serverExecutable(_ args: Arguments) -> String? {
        guard let path = args.value("serve-with") else { return nil }
        guard FileManager.default.isExecutableFile(atPath: path) else {
            Console.fail("--serve-with \(path): no executable there; give the path of a built `cab`", code: 64)
        }
        return path
    }

    /// `--trips`: `TripLoadBenchmark`, inline baseline then the handler pool.
    static func runTrips(_ args: Arguments, data: String, central: (Coordinate, Coordinate)) -> Never {
        var configuration = TripLoadBenchmark.Configuration(
            dataDirectory: data, durationSeconds: args.integer("duration", default: 20, in: 1...3600),
            pairs: args.integer("pairs", default: 32, in: 1...1_000),
            pickup: args.value("pickup").map { Arguments.parseCoordinate($0, what: "--pickup") } ?? central.0,
            dropoff: args.value("dropoff").map { Arguments.parseCoordinate($0, what: "--dropoff") } ?? central.1,
            serverLog: args.value("server-log") ?? "/dev/null",
            serverThreads: args.value("server-threads").map { _ in
                args.integer("server-threads", default: 32, in: 1...512)
            })
        configuration.loadNiceness = args.integer("load-niceness", default: 10, in: 0...19)
        configuration.serverExecutable = serverExecutable(args)
        let runs: [TripLoadBenchmark.Run]
        do {
            runs = try TripLoadBenchmark(configuration: configuration).run()
        } catch {
            Console.fail(error.message, code: 70)
        }
        if args.has("json") {
            Console.line(
                BenchFormat.jsonLine([
                    "build": BenchFormat.buildMode, "pairs": configuration.pairs,
                    "load_niceness": configuration.loadNiceness,
                    "runs": runs.map { r -> [String: Any] in
                        [
                            "handler_threads": r.handlerThreads, "trips": r.trips, "transitions": r.transitions,
                            "transitions_per_s": BenchFormat.round(Double(r.transitions) / max(r.seconds, 0.001), 1),
                            "failures": r.failures, "healthz_requests": r.healthzCount,
                            "healthz_failures": r.healthzFailures,
                            "healthz_p50_ms": BenchFormat.round(r.healthzP50, 3),
                            "healthz_p99_ms": BenchFormat.round(r.healthzP99, 3),
                            "healthz_max_ms": BenchFormat.round(r.healthzMax, 3), "heartbeats": r.heartbeats,
                            "heartbeat_delay_p50_ms": BenchFormat.round(r.heartbeatDelayP50, 3),
                            "heartbeat_delay_max_ms": BenchFormat.round(r.heartbeatDelayMax, 3),
                        ]
                    },
                ]))
            exitProcess(0)
        }
        var lines = [
            "cab bench api --trips (\(BenchFormat.buildMode) build, \(configuration.pairs) riders and \(configuration.pairs) "
                + "drivers playing whole trips, \(configuration.durationSeconds) s per server; /healthz probed every 5 ms; "
                + "riders and drivers at nice +\(configuration.loadNiceness))"
        ]
        for r in runs {
            lines.append("\(r.label):")
            lines.append(
                "  trips completed    \(r.trips) (\(r.transitions) durable transitions, "
                    + String(format: "%.0f/s", Double(r.transitions) / max(r.seconds, 0.001))
                    + ", \(r.failures) failures)")
            lines.append(
                "  GET /healthz       p50 "
                    + String(format: "%.2f ms  p99 %.2f ms  max %.1f ms", r.healthzP50, r.healthzP99, r.healthzMax)
                    + " (\(r.healthzCount) answered, \(r.healthzFailures) failed)")
            lines.append(
                "  SSE heartbeat late p50 "
                    + String(format: "%.1f ms  max %.1f ms", r.heartbeatDelayP50, r.heartbeatDelayMax)
                    + " (\(r.heartbeats) heartbeats on the drivers' streams)")
            if let first = r.firstFailure { lines.append("  first failure: \(first)") }
        }
        lines.append("  goal: /healthz p99 < 5 ms with the pool")
        Console.line(lines.joined(separator: "\n"))
        exitProcess(0)
    }

    static func text(_ r: APIBenchmark.Result) -> String {
        var lines = [
            "cab bench api (\(BenchFormat.buildMode) build, \(r.serverThreads.map { "cab serve --threads \($0)" } ?? "cab serve's default threads"), wrk \(r.connections) "
                + "connections, \(r.durationSeconds) s per load)",
            "GET /healthz        \(BenchFormat.rate(r.healthz.requestsPerSecond)) req/s    "
                + BenchFormat.latencies(r.healthz) + BenchFormat.failures(r.healthz),
        ]
        if let b = r.bookings {
            lines.append(
                "POST /v1/bookings   \(BenchFormat.rate(b.successesPerSecond)) bookings/s "
                    + BenchFormat.latencies(b) + BenchFormat.failures(b))
            lines.append("  target: >= 3,000 bookings/s and p99 < 20 ms; \(r.pairs) routes, durable (201 after fsync)")
            lines.append(
                "  bookings / healthz ceiling: "
                    + String(format: "%.1f%%", 100 * b.successesPerSecond / max(r.healthz.requestsPerSecond, 1)))
        } else {
            lines.append("POST /v1/bookings   \(r.bookingsNote ?? "not measured")")
        }
        if let d = r.diskSync {
            lines.append(
                "disk fdatasync      p50 "
                    + String(
                        format: "%.2f ms  p99 %.2f ms  max %.1f ms", d.p50Milliseconds,
                        d.p99Milliseconds, d.maxMilliseconds)
                    + " (\(d.syncs) syncs of 8 KiB in 2 s before the loads: a floor under a durable booking's latency)")
        }
        if let d = r.diskSyncDuringBookings {
            lines.append(
                "  same, beside the bookings: p50 "
                    + String(
                        format: "%.2f ms  p99 %.2f ms  max %.1f ms", d.p50Milliseconds,
                        d.p99Milliseconds, d.maxMilliseconds)
                    + " (\(d.syncs) syncs, one per 10 ms; \(d.over20Milliseconds) slower than 20 ms)")
        }
        if let peak = r.serverPeakResidentBytes { lines.append("server peak RSS     \(BenchFormat.mebibytes(peak))") }
        return lines.joined(separator: "\n")
    }

    static func json(_ r: APIBenchmark.Result) -> String {
        var object: [String: Any] = [
            "healthz_rps": BenchFormat.round(r.healthz.requestsPerSecond, 1),
            "healthz_p99_ms": BenchFormat.round(r.healthz.p99Milliseconds, 3),
            "connections": r.connections,
            "duration_s": r.durationSeconds,
            "build": BenchFormat.buildMode,
        ]
        object["bookings_per_s"] = r.bookings.map { BenchFormat.round($0.successesPerSecond, 1) } ?? NSNull()
        object["bookings_p50_ms"] = r.bookings.map { BenchFormat.round($0.p50Milliseconds, 3) } ?? NSNull()
        object["bookings_p99_ms"] = r.bookings.map { BenchFormat.round($0.p99Milliseconds, 3) } ?? NSNull()
        object["non_2xx"] = (r.bookings?.non2xx ?? 0) + r.healthz.non2xx
        if let note = r.bookingsNote { object["bookings_note"] = note }
        if let peak = r.serverPeakResidentBytes { object["server_peak_rss_bytes"] = peak }
        if let d = r.diskSync {
            object["disk_fdatasync_p50_ms"] = BenchFormat.round(d.p50Milliseconds, 3)
            object["disk_fdatasync_p99_ms"] = BenchFormat.round(d.p99Milliseconds, 3)
            object["disk_fdatasync_max_ms"] = BenchFormat.round(d.maxMilliseconds, 3)
        }
        if let d = r.diskSyncDuringBookings {
            object["disk_fdatasync_during_p99_ms"] = BenchFormat.round(d.p99Milliseconds, 3)
            object["disk_fdatasync_during_max_ms"] = BenchFormat.round(d.maxMilliseconds, 3)
            object["disk_fdatasync_during_over_20ms"] = d.over20Milliseconds
        }
        return BenchFormat.jsonLine(object)
    }
}
