import CabBench
import CabLoopback
import CabPlacesBench
import CabRoutingBench

/// `cab bench sse`: CabHTTP's server-sent-events fan-out ceiling, in one process (`SSEBenchmark`).
enum SSEBenchCommand {
    static let flags: [Arguments.Flag] = [
        .init(name: "clients", valueName: "N", help: "SSE connections (default 5000)"),
        .init(name: "rate", valueName: "N", help: "events per second over all clients (default 20000)"),
        .init(name: "duration", valueName: "S", help: "seconds measured (default 10)"),
        .init(name: "json", valueName: nil, help: "print one JSON object"),
    ]

    static let usage = """
        usage: cab bench sse [--clients N] [--rate N] [--duration S] [--json]

        Serves N event streams from an in-process CabHTTP server on 127.0.0.1 and reads them with N raw-socket
        clients under one poll loop; a publisher thread sends RATE events/s in all, each stamped with its send time.
        Prints events/s received and p50/p99 delivery latency: the ceiling the tracking stream (issue 6: 5,000
        clients at 20,000 events/s, p99 under 500 ms) builds on. Printed, never asserted.

        \(Arguments.describe(flags))
        """

    static func run(_ arguments: [String]) -> Never {
        let args = Arguments(arguments, flags: flags, usage: usage)
        let configuration = SSEBenchmark.Configuration(
            clients: args.integer("clients", default: 5000, in: 1...100_000),
            eventsPerSecond: args.integer("rate", default: 20_000, in: 1...10_000_000),
            durationSeconds: args.integer("duration", default: 10, in: 1...3600))
        let r: SSEBenchmark.Result
        do {
            r = try SSEBenchmark(configuration: configuration).run()
        } catch {
            Console.fail(error.message, code: 70)
        }
        let f = r.fanOut
        if args.has("json") {
            var object: [String: Any] = [
                "sse_clients": f.clientsConnected, "sse_clients_failed": f.clientsFailed,
                "sse_events_per_s": BenchFormat.round(f.eventsPerSecond, 1), "published": r.published,
                "dropped": r.dropped, "connect_s": BenchFormat.round(f.connectSeconds, 3),
                "build": BenchFormat.buildMode,
            ]
            object["sse_p50_ms"] = f.p50DeliveryMilliseconds.map { BenchFormat.round($0, 3) }
            object["sse_p99_ms"] = f.p99DeliveryMilliseconds.map { BenchFormat.round($0, 3) }
            object["peak_rss_bytes"] = r.residentBytes
            Console.line(BenchFormat.jsonLine(object))
        } else {
            Console.line(
                SSEFanOutReport.lines(
                    f,
                    title: "cab bench sse (\(BenchFormat.buildMode) build, in-process "
                        + "CabHTTP, publisher tick \(String(format: "%.0f", r.tickMilliseconds)) ms)"))
            Console.line("published           \(r.published) events; dropped by bounded buffers: \(r.dropped)")
            if let rss = r.residentBytes { Console.line("process peak RSS    \(BenchFormat.mebibytes(rss))") }
        }
        exitProcess(0)
    }
}

/// Prints an `SSEFanOut.Result`.
enum SSEFanOutReport {
    static func lines(_ f: SSEFanOut.Result, title: String) -> String {
        func ms(_ v: Double?) -> String { v.map { String(format: "%.1f ms", $0) } ?? "n/a" }
        var lines = [
            title,
            "clients             \(f.clientsConnected) of \(f.clientsRequested) streaming (failed \(f.clientsFailed), "
                + "closed during the window \(f.clientsClosed)), connected in "
                + String(format: "%.2f s", f.connectSeconds),
            "events              \(BenchFormat.rate(f.eventsPerSecond)) events/s received over "
                + String(format: "%.1f s", f.windowSeconds) + " (\(f.events) events, \(f.heartbeats) heartbeats)",
            "delivery latency    p50 \(ms(f.p50DeliveryMilliseconds))  p99 \(ms(f.p99DeliveryMilliseconds))  "
                + "max \(ms(f.maxDeliveryMilliseconds))",
        ]
        if f.eventsWithoutTime > 0 { lines.append("  \(f.eventsWithoutTime) events had no readable time field") }
        if let why = f.firstFailure { lines.append("  first failure: \(why)") }
        return lines.joined(separator: "\n")
    }
}
