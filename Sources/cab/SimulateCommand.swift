import CabAPI
import CabBench
import CabClient
import CabDispatch
import CabGeo
import CabImport
import CabLoopback
import CabPlacesBench
import CabRouting
import CabRoutingBench
import Foundation
import Synchronization

/// `cab simulate`: N drivers driving real routes on the imported map, reporting through CabClient's
/// `LocationReporter` over HTTP, so the live map moves.
enum SimulateCommand {
    static let flags: [Arguments.Flag] = [
        .init(
            name: "data", valueName: "DIR", help: "data directory with the imported map (default $CAB_DATA or data/cab)"
        ),
        .init(
            name: "url", valueName: "URL[,URL...]",
            help: "the server, or the nodes of one city separated by commas: driver i uses node i mod n "
                + "(default http://127.0.0.1:8080)"),
        .init(name: "drivers", valueName: "N", help: "simulated drivers (default 10)"),
        .init(name: "rate", valueName: "SECONDS", help: "seconds between a driver's reports (default 2)"),
        .init(name: "duration", valueName: "S", help: "stop after S seconds (default: run until Ctrl-C)"),
        .init(name: "seed", valueName: "N", help: "random seed for start points and destinations (default 1)"),
        .init(
            name: "connections", valueName: "N",
            help: "upload over N keep-alive connections per node (servers on 127.0.0.1) instead of one URLSession "
                + "request each: the simulator then costs far less than the servers it measures"),
        .init(
            name: "lean", valueName: nil,
            help: "lean phones (servers on 127.0.0.1): each driver goes back and forth on a straight line and a few "
                + "threads per node post every fix on time over keep-alive connections, for 100,000 drivers and more"),
        .init(
            name: "threads", valueName: "N",
            help: "with --lean: posting threads (one connection each) per node (default 4)"),
        .init(
            name: "dispatcher-token", valueName: "TOKEN",
            help: "a dispatcher's token: follow every node's fleet stream and time each position from the fix to it"),
    ]

    static let usage = """
        usage: cab simulate --data DIR --url http://127.0.0.1:PORT --drivers N --rate SECONDS [--duration S]

        Creates N driver accounts through the API (POST /v1/drivers), then drives each along road routes between
        random points of the imported map, reporting positions through CabClient's LocationReporter every RATE
        seconds. Prints one line per driver created (up to 1,000 drivers) and a summary at the end: accepted fixes/s,
        each upload's round trip (p50, p99) and the uploads each node took; with --dispatcher-token, how long a fix
        took from the phone to each node's fleet stream (p50, p99). With --lean (and --duration), drivers are a few
        numbers each, posted by --threads threads per node: the fleet figures at 100,000 drivers and more.

        \(Arguments.describe(flags))
        """

    /// `cab simulate --lean`: `LeanFleet` over the nodes, then its figures; exits.
    static func lean(
        _ args: Arguments, urls: [URL], drivers: Int, rate: Double, duration: Double?, seed: UInt64,
        routing: RoutingService
    ) -> Never {
        guard urls.allSatisfy({ $0.host == "127.0.0.1" && $0.scheme == "http" }) else {
            Console.fail("--lean needs servers at http://127.0.0.1:PORT")
        }
        guard let duration else { Console.fail("--lean needs --duration S") }
        let junctions = routing.graph.routableNodeCoordinates
        guard junctions.count >= 2 else { Console.fail("the imported map has no road network", code: 65) }
        var configuration = LeanFleet.Configuration(
            ports: urls.map { $0.port ?? 80 }, drivers: drivers, rateSeconds: rate, durationSeconds: duration)
        configuration.threadsPerNode = args.integer("threads", default: 4, in: 1...256)
        configuration.seed = seed
        configuration.streamToken = args.value("dispatcher-token")
        _ = LoopbackSocket.raiseOpenFileLimit(to: 4_096)
        let s = LeanFleet(configuration: configuration, junctions: junctions).run { Console.line($0) }
        let p50 = s.uploadP50Milliseconds.map { String(format: "%.1f ms", $0) } ?? "-"
        let p99 = s.uploadP99Milliseconds.map { String(format: "%.1f ms", $0) } ?? "-"
        Console.line(
            "lean fleet: \(s.drivers) drivers for \(Int(s.seconds)) s over \(urls.count) nodes, "
                + "\(configuration.threadsPerNode) threads each: \(s.uploads) uploads, \(s.failedUploads) failed, "
                + "\(s.lateUploads) posted over 1 s late")
        Console.line(
            String(
                format: "accepted fixes %.0f/s after the first period (expected %.0f/s); ", s.steadyFixesPerSecond,
                s.expectedFixesPerSecond)
                + "upload round trip p50 \(p50), p99 \(p99); "
                + String(format: "accounts made in %.1f s", s.signUpSeconds))
        printStreamDelays(s.streamDelays, urls: urls)
        exitProcess(0)
    }

    /// One line per node's fleet stream: how long a fix took from the phone to it.
    static func printStreamDelays(
        _ delays: [(p50: Double?, p99: Double?, events: Int, missed: Int, reconnects: Int)], urls: [URL]
    ) {
        for (url, delay) in zip(urls, delays) {
            let p50 = delay.p50.map { String(format: "%.0f ms", $0) } ?? "-"
            let p99 = delay.p99.map { String(format: "%.0f ms", $0) } ?? "-"
            Console.line(
                "stream delay, fix to the fleet stream on \(url.host ?? ""):\(url.port ?? 80): p50 \(p50), "
                    + "p99 \(p99) over \(delay.events) positions (\(delay.missed) missed in gaps, "
                    + "\(delay.reconnects) reconnections)")
        }
    }

    /// `--url`'s nodes, separated by commas; exits 64 naming one that is not an http(s) URL.
    static func nodeURLs(_ list: String) -> [URL] {
        list.split(separator: ",").map { text in
            guard let url = URL(string: String(text)), url.scheme?.hasPrefix("http") == true, url.host != nil else {
                Console.fail("--url: '\(text)' is not an http(s) URL such as http://127.0.0.1:8080")
            }
            return url
        }
    }

    static func run(_ arguments: [String]) -> Never {
        let args = Arguments(arguments, flags: flags, usage: usage)
        let data = dataDirectory(args)
        let urls = nodeURLs(args.value("url") ?? "http://127.0.0.1:8080")
        guard !urls.isEmpty else { Console.fail("--url needs at least one http(s) URL") }
        let drivers = args.integer("drivers", default: 10, in: 1...1_000_000)
        guard let rate = Double(args.value("rate") ?? "2"), rate >= 0.05, rate <= 3600 else {
            Console.fail("--rate must be seconds between 0.05 and 3600")
        }
        let duration = args.value("duration").map { text -> Double in
            guard let d = Double(text), d > 0 else { Console.fail("--duration must be a positive number of seconds") }
            return d
        }
        let seed = UInt64(args.integer("seed", default: 1, in: 0...Int.max))
        let routing = ServiceLoader.loadRouting(dataDirectory: data)
        if args.has("lean") {
            lean(args, urls: urls, drivers: drivers, rate: rate, duration: duration, seed: seed, routing: routing)
        }
        var configured = Simulation(
            routing: routing, baseURLs: urls, drivers: drivers, rateSeconds: rate, durationSeconds: duration, seed: seed
        )
        configured.streamToken = args.value("dispatcher-token")
        if args.value("connections") != nil {
            guard urls.allSatisfy({ $0.host == "127.0.0.1" && $0.scheme == "http" }) else {
                Console.fail("--connections needs servers at http://127.0.0.1:PORT")
            }
            configured.connectionsPerNode = args.integer("connections", default: 8, in: 1...256)
        }
        let simulation = configured
        switch runBlocking({ () async throws(ClientError) in try await simulation.run() }) {
        case .success(let summary):
            Console.line(
                "simulated \(summary.drivers) drivers for \(Int(summary.seconds)) s: \(summary.uploads) uploads, "
                    + "\(summary.failedUploads) failed, \(summary.routes) routes driven")
            let perSecond = summary.steadyFixesPerSecond ?? Double(summary.acceptedFixes) / max(summary.seconds, 0.001)
            let p50 = summary.uploadP50Milliseconds.map { String(format: "%.1f ms", $0) } ?? "-"
            let p99 = summary.uploadP99Milliseconds.map { String(format: "%.1f ms", $0) } ?? "-"
            Console.line(
                String(format: "accepted fixes %.0f/s (after the first period)", perSecond)
                    + "; upload round trip p50 \(p50), p99 \(p99); "
                    + String(format: "accounts made in %.1f s", summary.signUpSeconds))
            if urls.count > 1 {
                let nodes = zip(urls, summary.uploadsPerNode).map { "\($0.host ?? ""):\($0.port ?? 80) \($1)" }
                Console.line("accepted uploads per node: " + nodes.joined(separator: ", "))
            }
            printStreamDelays(summary.streamDelays, urls: urls)
            exitProcess(0)
        case .failure(let error):
            Console.fail("simulate: \(error.message)", code: 69)
        }
    }
}
