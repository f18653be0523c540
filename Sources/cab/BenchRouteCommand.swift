import CabAPI
import CabBench
import CabDispatch
import CabGeo
import CabHTTP
import CabImport
import CabLoopback
import CabOSM
import CabPlacesBench
import CabRouting
import CabRoutingBench
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// `cab bench route`: imports a PBF in process (timed), runs `RoutingBenchmark` on it (fast router against plain
/// Dijkstra in the same run), measures `GET /v1/route` over HTTP on loopback, and optionally synthetic grid
/// cities, each in a child process of its own so that its peak memory is its own. Figures are printed, never
/// asserted.
enum BenchRouteCommand {
    static let flags: [Arguments.Flag] = [
        .init(name: "map", valueName: "FILE", help: "OSM PBF extract to import and measure"),
        .init(name: "pairs", valueName: "N", help: "random point pairs for the point-to-point figures (default 10000)"),
        .init(
            name: "dijkstra-pairs", valueName: "N",
            help: "of those, pairs plain Dijkstra answers too (default min(pairs, 1000))"),
        .init(name: "http-requests", valueName: "N", help: "sequential keep-alive GET /v1/route (default 2000)"),
        .init(name: "synthetic", valueName: "N,N,..", help: "also measure synthetic grid cities of about N nodes"),
        .init(name: "synthetic-only", valueName: "N", help: "measure one synthetic city only (what --synthetic runs)"),
        .init(
            name: "export-edges", valueName: "FILE", help: "also write the graph's edges for scripts/routingkit-peer.py"
        ),
        .init(
            name: "label-entries", valueName: "N",
            help: "the hub-label budget in entries (default FastRouterIndex.Configuration's, 24000000)"),
        .init(name: "json", valueName: nil, help: "print one JSON object"),
    ]

    static let usage = """
        usage: cab bench route --map FILE.osm.pbf [--pairs N] [--synthetic 200000,1000000] [--json]

        Imports FILE (PBF decode + road graph, timed as import_s), preprocesses it (contraction hierarchy + hub
        labels, preprocess_s), times point-to-point queries against plain Dijkstra on the same pairs, routes with
        geometry, many-to-one (20 and 100 drivers to a pickup, snapping included), and GET /v1/route over HTTP on
        127.0.0.1 (one keep-alive connection, sequential requests). Targets (issue 3): p2p <= 3 us and >= 200x
        Dijkstra, geometry < 30 us, 20 drivers < 20 us, 100 drivers < 100 us, HTTP p50 < 0.3 ms; synthetic
        200k-node city preprocessed in < 10 s under 100 MB peak. One thread. Printed, never asserted.

        \(Arguments.describe(flags))
        """

    static func run(_ arguments: [String]) -> Never {
        let args = Arguments(arguments, flags: flags, usage: usage)
        guard args.positional.isEmpty else { Console.fail("bench route takes no positional arguments\n\n\(usage)") }
        let pairs = args.integer("pairs", default: 10_000, in: 10...1_000_000)
        if args.value("synthetic-only") != nil {
            let nodes = args.integer("synthetic-only", default: 0, in: 100...20_000_000)
            Console.line(encode(runSynthetic(nodes: nodes, pairs: min(pairs, 1_000))))
            exitProcess(0)
        }
        let sizes = (args.value("synthetic") ?? "").split(separator: ",").map { text -> Int in
            guard let n = Int(text.trimmingCharacters(in: .whitespaces)), n >= 100, n <= 20_000_000 else {
                Console.fail("--synthetic takes node counts from 100 to 20000000 separated by commas, not '\(text)'")
            }
            return n
        }
        guard let map = args.value("map") else { Console.fail("--map FILE.osm.pbf is required\n\n\(usage)") }
        guard FileManager.default.isReadableFile(atPath: map) else { Console.fail("cannot read \(map)", code: 66) }
        let httpRequests = args.integer("http-requests", default: 2_000, in: 0...1_000_000)

        let clock = ContinuousClock()
        let started = clock.now
        let graph: RoadGraph
        do {
            var handler = RoadImport(sourceFingerprint: try MapFingerprint.ofFile(atPath: map))
            try PBFReader(path: map).read(into: &handler, options: .init(nodeTags: false))
            graph = handler.build().graph
        } catch {
            Console.fail("cannot import \(map): \(error)", code: 65)
        }
        let importSeconds = seconds(clock.now - started)
        if let path = args.value("export-edges") { exportEdges(graph, to: path) }
        var index = FastRouterIndex.Configuration()
        index.hubLabelEntryLimit = args.integer(
            "label-entries", default: index.hubLabelEntryLimit, in: 1...1_000_000_000)
        let preprocessed = RoutingBenchmark.preprocess(graph, configuration: index)
        let result = RoutingBenchmark.measure(
            on: graph, preprocessed: preprocessed, importSeconds: importSeconds,
            configuration: .init(
                pairs: pairs, dijkstraPairs: args.integer("dijkstra-pairs", default: min(pairs, 1_000), in: 1...pairs),
                index: index))
        let http: [Double]
        do {
            http = try measureHTTP(graph: graph, index: preprocessed.index, requests: httpRequests)
        } catch {
            Console.fail(error.message, code: 70)
        }
        let synthetic = sizes.map(runSyntheticChild)
        var object = dictionary(result)
        object["map"] = (map as NSString).lastPathComponent
        object["cores"] = HTTPServerConfiguration.processorCount
        object["build"] = BenchFormat.buildMode
        object["import_plus_preprocess_s"] = round(importSeconds + result.preprocessSeconds, 3)
        object["speedup_vs_dijkstra"] = round(result.speedup, 1)
        object["http_requests"] = http.count
        object["http_route_p50_ms"] = http.isEmpty ? NSNull() : round(percentile(http, 0.5), 4)
        object["http_route_p99_ms"] = http.isEmpty ? NSNull() : round(percentile(http, 0.99), 4)
        object["synthetic"] = synthetic.map(dictionary)
        if args.has("json") {
            Console.line(BenchFormat.jsonLine(object))
        } else {
            Console.line(text(result, map: object["map"] as? String ?? map, http: http, synthetic: synthetic))
        }
        exitProcess(0)
    }

    /// A synthetic grid city of about `nodes` crossings, measured with fewer queries (Dijkstra is slow there).
    static func runSynthetic(nodes: Int, pairs: Int) -> RoutingBenchmark.Result {
        RoutingBenchmark.runSynthetic(
            nodes: nodes, configuration: .init(pairs: pairs, dijkstraPairs: 20, manyToOneRounds: 200))
    }

    /// Runs `--synthetic-only nodes` in a fresh process (its own peak RSS) and decodes its JSON line.
    static func runSyntheticChild(nodes: Int) -> RoutingBenchmark.Result {
        let executable =
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
            ?? CommandLine.arguments[0]
        do throws(BenchError) {
            let child = try ChildProcess(
                executable: executable, arguments: ["bench", "route", "--synthetic-only", String(nodes)],
                stderrPath: "/proc/\(getpid())/fd/2")  // this process's stderr (the child's own fd 2 is replaced)
            let output = child.readAll()
            let status = child.waitForExit()
            guard status == 0, let line = output.split(separator: "\n").last,
                let result = try? JSONDecoder().decode(RoutingBenchmark.Result.self, from: Data(line.utf8))
            else { throw BenchError("the synthetic \(nodes)-node run failed (exit \(status))") }
            return result
        } catch {
            Console.fail(error.message, code: 70)
        }
    }

    /// Writes the graph's edges for the RoutingKit peer (`scripts/routingkit-peer.py`): little-endian u32 node
    /// count and edge count, then every edge's tail, every head, every duration in milliseconds (u32 each).
    static func exportEdges(_ graph: RoadGraph, to path: String) {
        var words: [UInt32] = [UInt32(graph.nodeCount), UInt32(graph.edgeCount)]
        words.reserveCapacity(2 + 3 * graph.edgeCount)
        words += graph.edgeSources
        words += graph.edgeTargets
        words += graph.edgeDurationsMilliseconds
        let data = words.withUnsafeBytes { Data($0) }
        guard FileManager.default.createFile(atPath: path, contents: data) else {
            Console.fail("cannot write \(path)", code: 73)
        }
    }

    /// Serves `/v1/route` in process on 127.0.0.1 (port 0) and times `requests` sequential GETs with random
    /// endpoints on one keep-alive connection; milliseconds per request, send to last byte.
    static func measureHTTP(graph: RoadGraph, index: FastRouterIndex, requests: Int) throws(BenchError) -> [Double] {
        guard requests > 0 else { return [] }
        let app = CabApplication(
            configuration: APIConfiguration(publicDirectory: nil),
            services: Services(routing: RoutingService(graph: graph, index: index)), metrics: MetricsRegistry())
        let server = HTTPServer(
            configuration: HTTPServerConfiguration(port: 0), router: app.makeRouter(), metrics: app.metrics,
            errorMapper: app.errorMapper(log: nil))
        let port: Int
        do { port = try server.start() } catch { throw BenchError("cannot start the HTTP server: \(error.message)") }
        defer { server.shutdown() }
        let fd = try LoopbackSocket.connect(port: port, nonBlocking: false)
        defer { close(fd) }
        var random = SplitMix64(seed: 11)
        let nodes = (0..<graph.nodeCount).filter { graph.nodeInLargestComponent[$0] }
        guard !nodes.isEmpty else { return [] }
        func point() -> String {
            let c = graph.nodeCoordinates[nodes[Int(random.next() % UInt64(nodes.count))]]
            return String(format: "%.6f,%.6f", c.latitude, c.longitude)
        }
        var samples: [Double] = []
        samples.reserveCapacity(requests)
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        for i in 0..<(requests + 50) {  // the first 50 warm the connection and caches up
            let request = LoopbackSocket.request(
                method: "GET", path: "/v1/route?from=\(point())&to=\(point())", keepAlive: true)
            let start = monotonicSeconds()
            try LoopbackSocket.writeAll(fd, request)
            var decoder = HTTPResponseDecoder()
            while !decoder.isComplete {
                let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                if n < 0 && errno == EINTR { continue }
                guard n > 0 else { throw BenchError("GET /v1/route: the server closed the connection") }
                _ = try decoder.feed(buffer[0..<n])
            }
            let elapsed = (monotonicSeconds() - start) * 1000
            guard decoder.status == 200 else { throw BenchError("GET /v1/route answered \(decoder.status ?? 0)") }
            if i >= 50 { samples.append(elapsed) }
        }
        return samples
    }

    static func text(
        _ r: RoutingBenchmark.Result, map: String, http: [Double], synthetic: [RoutingBenchmark.Result]
    ) -> String {
        func us(_ v: Double) -> String { String(format: "%8.2f us", v) }
        var lines = [
            "cab bench route (\(BenchFormat.buildMode) build, \(HTTPServerConfiguration.processorCount) cores, "
                + "one query thread) on \(map)",
            "graph               \(r.nodes) nodes, \(r.edges) edges, \(r.shortcuts) shortcuts, labels "
                + (r.averageLabelSize.map { String(format: "%.1f hubs avg", $0) } ?? "none")
                + (r.labelledNodes.map {
                    String(
                        format: " on %d nodes (%.0f%%, the upper hierarchy), %.0f MB", $0,
                        100 * Double($0) / Double(max(r.nodes, 1)), r.labelMegabytes ?? 0)
                } ?? ""),
            String(
                format: "import              %.3f s (PBF + graph), preprocess %.3f s (contraction %.3f + labels %.3f)",
                r.importSeconds ?? 0, r.preprocessSeconds, r.contractionSeconds, r.hubLabelSeconds),
            String(
                format: "peak RSS            %.1f MB after preprocessing, %.1f MB at the end", r.peakRSSMegabytes,
                r.peakRSSAfterQueriesMegabytes),
            "p2p duration        \(us(r.p2pMedianMicroseconds)) median (CH alone \(us(r.p2pHierarchyMedianMicroseconds)))"
                + "  target <= 3 us",
            "p2p Dijkstra        \(us(r.p2pDijkstraMedianMicroseconds)) median on \(r.dijkstraPairs) of the same pairs: "
                + String(format: "%.0fx", r.speedup) + "  target >= 200x",
            "p2p with geometry   \(us(r.p2pGeometryMedianMicroseconds)) median  target < 30 us",
            "many-to-one 20      \(us(r.manyToOne20MedianMicroseconds)) median incl. snapping (routing alone "
                + "\(us(r.manyToOne20RoutingMedianMicroseconds)))  target < 20 us",
            "many-to-one 100     \(us(r.manyToOne100MedianMicroseconds)) median incl. snapping  target < 100 us",
            "snap one point      \(us(r.snapMedianMicroseconds)) median; \(r.pairs) pairs",
        ]
        if let settled = r.climbSettled, let border = r.climbBorderNodes, let entries = r.climbBorderEntries,
            let scanned = r.climbScannedEntries
        {
            lines.append(
                String(
                    format:
                        "climbs (m2o 20)     %.1f nodes settled, %.1f border nodes, %.0f of their %.0f label entries "
                        + "scanned, per climb", settled, border, scanned, entries))
        }
        if r.nodes >= 200_000 {
            lines.append(
                "metro goals (issue 19): p2p <= half of RoutingKit's median (scripts/routingkit-peer.py, same graph), "
                    + "geometry < 30 us, many-to-one 20 < 50 us and 100 < 200 us incl. snapping")
        }
        if !http.isEmpty {
            lines.append(
                String(
                    format:
                        "GET /v1/route       %.3f ms p50, %.3f ms p99 over %d keep-alive requests  target p50 < 0.3 ms",
                    percentile(http, 0.5), percentile(http, 0.99), http.count))
        }
        for s in synthetic {
            lines.append(
                String(
                    format: "synthetic %7d    %d edges: build %.2f s, preprocess %.2f s, peak RSS %.1f MB; p2p %.2f us",
                    s.nodes, s.edges, s.importSeconds ?? 0, s.preprocessSeconds, s.peakRSSMegabytes,
                    s.p2pMedianMicroseconds))
        }
        return lines.joined(separator: "\n")
    }

    static func encode(_ result: RoutingBenchmark.Result) -> String {
        // A struct of numbers and optionals: encoding cannot fail.
        String(decoding: try! JSONEncoder().encode(result), as: UTF8.self)
    }

    static func dictionary(_ result: RoutingBenchmark.Result) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(encode(result).utf8))) as? [String: Any] ?? [:]
    }

    static func percentile(_ values: [Double], _ p: Double) -> Double {
        let sorted = values.sorted()
        return sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))]
    }

    static func round(_ value: Double, _ places: Int) -> Double { BenchFormat.round(value, places) }

    static func seconds(_ d: Duration) -> Double {
        Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
    }
}
