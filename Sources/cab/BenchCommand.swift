import CabBench
import CabLoopback
import CabPlacesBench
import CabRoutingBench

/// `cab bench KIND`: benchmarks that print figures with a baseline measured in the same run (STYLE.md §8).
enum BenchCommand {
    /// The benchmarks, by name; each parses its own flags.
    static let kinds: [(name: String, summary: String, run: @Sendable ([String]) -> Never)] = [
        (
            "places", "typed-prefix and reverse geocoding medians/p99 on a map's index and a synthetic one",
            BenchPlacesCommand.run
        ),
        ("dispatch", "dispatch decision and booking-to-first-offer latency", DispatchCommands.bench),
        ("api", "healthz ceiling, durable bookings/s and p50/p99 over HTTP (wrk)", APIBenchCommand.run),
        (
            "sse", "CabHTTP SSE fan-out ceiling: 5,000 raw-socket clients, events/s and p99 delivery",
            SSEBenchCommand.run
        ),
        (
            "tracking", "issue 6 in one run: in-process ingest/nearest/memory, Redis GEOSEARCH, HTTP ingest and SSE",
            TrackingBenchCommand.run
        ),
        (
            "tracking-http", "single-fix location posts/s (wrk) and fleet-stream SSE fan-out over HTTP",
            TrackingHTTPBenchCommand.run
        ),
        ("route", "fast routing vs Dijkstra, many-to-one, import+preprocess, GET /v1/route p50", BenchRouteCommand.run),
        (
            "turns", "what via-way restrictions and U-turn rules cost, against the graph without them; OSRM pairs",
            BenchTurnsCommand.run
        ),
        (
            "store", "durable bookings/s, p50/p99 and location rows/s: SQLite and PostgreSQL side by side",
            StoreBenchCommand.run
        ),
        (
            "map", "base-map tiles per zoom: p50/p99 ms and bytes per tile beside the bbox query and the old blocks",
            BenchMapCommand.run
        ),
        (
            "cluster", "fix to a rider's stream and nearby on another node of 3 (PostgreSQL, Redis), next to one node",
            ClusterBenchCommand.run
        ),
    ]

    static var usage: String {
        """
        usage: cab bench KIND [options] [--json]

        kinds:
        \(kinds.map { "  \($0.name.padding(toLength: 15, withPad: " ", startingAt: 0))\($0.summary)" }.joined(separator: "\n"))

        Run `cab bench KIND --help` for its flags. Figures are printed, never asserted.
        """
    }

    static func run(_ arguments: [String]) -> Never {
        guard let kind = arguments.first, let entry = kinds.first(where: { $0.name == kind }) else {
            if arguments.first == "--help" || arguments.first == "-h" {
                print(usage)
                exitProcess(0)
            }
            Console.fail("bench needs a kind\n\n\(usage)")
        }
        entry.run(Array(arguments.dropFirst()))
    }
}
