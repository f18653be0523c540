import CabBench
import CabLoopback
import CabPlacesBench
import CabRoutingBench

/// `cab bench tracking-http`: the HTTP parts of issue 6's benchmark on their own (`TrackingHTTPBenchmark`), until
/// `cab bench tracking` joins them with the in-process figures.
enum TrackingHTTPBenchCommand {
    static let flags: [Arguments.Flag] = [
        .init(name: "data", valueName: "DIR", help: "imported data directory (default $CAB_DATA or data/cab)"),
        .init(name: "drivers", valueName: "N", help: "driver accounts posting fixes (default 30000)"),
        .init(name: "duration", valueName: "S", help: "seconds per load (default 10)"),
        .init(name: "connections", valueName: "N", help: "ingest connections (default 64)"),
        .init(name: "sse-clients", valueName: "N", help: "fleet-stream clients (default 5000; 0 skips)"),
        .init(name: "sse-events", valueName: "N", help: "events/s to deliver over all streams (default 25000)"),
        .init(name: "server-threads", valueName: "N", help: "`cab serve --threads N` (default: serve's own default)"),
        .init(name: "json", valueName: nil, help: "print one JSON object"),
        .init(
            name: "handler-threads", valueName: "N",
            help:
                "`cab serve --handler-threads N` (default: serve's own; 0 runs handlers inline, the pre-pool baseline)"),
    ]

    static let usage = """
        usage: cab bench tracking-http [--data DIR] [--drivers N] [--duration S] [--sse-clients N] [--server-threads N] [--json]

        Starts `cab serve` on a scratch copy of DIR, registers N drivers, measures single-fix
        POST /v1/driver/locations requests/s with wrk (target 25,000), then opens the fleet stream N times as a
        dispatcher and measures events/s and p99 delivery (target 5,000 clients, 20,000 events/s, p99 < 500 ms).

        \(Arguments.describe(flags))
        """

    static func run(_ arguments: [String]) -> Never {
        let args = Arguments(arguments, flags: flags, usage: usage)
        let data = dataDirectory(args)
        let drivers = args.integer("drivers", default: 30_000, in: 1...1_000_000)
        let duration = args.integer("duration", default: 10, in: 1...3600)
        let connections = args.integer("connections", default: 64, in: 2...10_000)
        let clients = args.integer("sse-clients", default: 5000, in: 0...100_000)
        let events = args.integer("sse-events", default: 25_000, in: 1...10_000_000)
        let serverThreads = args.value("server-threads").map { _ in
            args.integer("server-threads", default: 2, in: 1...512)
        }
        let handlerThreads = args.value("handler-threads").map { _ in
            args.integer("handler-threads", default: 0, in: 0...4096)
        }
        var object: [String: Any] = ["drivers": drivers, "build": BenchFormat.buildMode]
        var lines = [
            "cab bench tracking-http (\(BenchFormat.buildMode) build, \(drivers) drivers, \(duration) s per load)"
        ]
        do {
            try measure(
                data: data, drivers: drivers, duration: duration, connections: connections, clients: clients,
                sseEventsPerSecond: events, serverThreads: serverThreads, handlerThreads: handlerThreads, into: &object,
                lines: &lines)
        } catch {
            Console.fail(error.message, code: 70)
        }
        Console.line(args.has("json") ? BenchFormat.jsonLine(object) : lines.joined(separator: "\n"))
        exitProcess(0)
    }

    /// Runs the HTTP loads against a `cab serve` on a scratch copy of `data`, adding figures to `object` (the
    /// issue's JSON keys) and report lines to `lines`; `cab bench tracking` calls it too.
    static func measure(
        data: String, drivers: Int, duration: Int, connections: Int, clients: Int, sseEventsPerSecond: Int = 25_000,
        serverThreads: Int? = nil, handlerThreads: Int? = nil, into object: inout [String: Any], lines: inout [String]
    ) throws(BenchError) {
        let centre = MapPoints.centralPair(dataDirectory: data)?.0 ?? APIBenchCommand.fallbackPair.0
        let scratch = try ScratchDataDirectory(linkingFrom: data)
        defer { scratch.remove() }
        let server = try LoopbackServer(
            dataDirectory: scratch.path,
            extraArguments: (serverThreads.map { ["--threads", "\($0)"] } ?? [])
                + (handlerThreads.map { ["--handler-threads", "\($0)"] } ?? []))
        defer { server.stop() }
        Console.error("registering \(drivers) drivers")
        let tokens = try TrackingHTTPBenchmark.registerDrivers(server: server, count: drivers)
        Console.error("POST /v1/driver/locations for \(duration) s at \(connections) connections")
        let ingest = try TrackingHTTPBenchmark.measureIngest(
            server: server, tokens: tokens, centre: centre,
            wrk: WrkRunner(threads: 2, connections: connections, durationSeconds: duration))
        object["ingest_http_per_s"] = BenchFormat.round(ingest.wrk.successesPerSecond, 1)
        object["ingest_http_p99_ms"] = BenchFormat.round(ingest.wrk.p99Milliseconds, 3)
        object["ingest_http_non_2xx"] = ingest.wrk.non2xx
        lines.append(
            "POST /v1/driver/locations  \(BenchFormat.rate(ingest.wrk.successesPerSecond)) req/s  "
                + BenchFormat.latencies(ingest.wrk) + BenchFormat.failures(ingest.wrk)
                + "  accepted fixes \(ingest.acceptedFixes); target 25,000 req/s")
        if clients > 0 {
            let dispatcher = try TrackingHTTPBenchmark.createDispatcher(store: ["--data", scratch.path])
            Console.error("opening \(clients) fleet streams")
            let fan = try TrackingHTTPBenchmark.measureFleetFanOut(
                server: server, dispatcherToken: dispatcher, tokens: tokens, centre: centre, clients: clients,
                seconds: duration, fixesPerSecond: max(1, (sseEventsPerSecond + clients - 1) / max(1, clients)))
            object["sse_clients"] = fan.fanOut.clientsConnected
            object["sse_events_per_s"] = BenchFormat.round(fan.fanOut.eventsPerSecond, 1)
            object["sse_p99_ms"] = fan.fanOut.p99DeliveryMilliseconds.map { BenchFormat.round($0, 3) }
            lines.append(SSEFanOutReport.lines(fan.fanOut, title: "GET /v1/fleet/stream"))
            if let why = fan.publisherError { lines.append("  feeding load failed: \(why)") }
            if let load = fan.publisher {
                lines.append(
                    "  fed by \(BenchFormat.rate(load.successesPerSecond)) fixes/s over 4 connections"
                        + " (\(load.requests) requests, \(load.socketErrors) socket errors"
                        + (load.non2xx > 0 ? ", answers \(load.statusSummary))" : ")"))
            }
        }
        if let peak = server.peakResidentBytes() {
            object["server_peak_rss_bytes"] = peak
            lines.append("server peak RSS  \(BenchFormat.mebibytes(peak))")
        }
    }
}
