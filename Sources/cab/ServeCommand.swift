import CabAPI
import CabHTTP
import Foundation

/// `cab serve`: loads the data directory and serves the API and web app until SIGTERM/SIGINT.
enum ServeCommand {
    static let flags: [Arguments.Flag] = [
        .init(name: "data", valueName: "DIR", help: "data directory (imported map and store; default $CAB_DATA or data/cab)"),
        .init(name: "host", valueName: "H", help: "address to listen on (default 127.0.0.1; 0.0.0.0 for all)"),
        .init(name: "port", valueName: "N", help: "port (default 8080; 0 picks a free one)"),
        .init(name: "threads", valueName: "N", help: "worker threads (default: 2 per core, at least 4)"),
        .init(name: "public", valueName: "DIR", help: "web app directory (default Public)"),
        .init(name: "tariff", valueName: "FILE", help: "tariff JSON file (default: 1.20 EUR per km)"),
        .init(name: "max-per-address", valueName: "N", help: "connections open at once from one address (default 256; 0: no cap)"),
    ]

    static let usage = """
        usage: cab serve [--data DIR] [--host H] [--port N]

        Serves the HTTP API and the web app. Prints `listening on http://H:PORT` as the first line of standard
        output once ready; stops gracefully on SIGTERM or SIGINT, finishing requests in flight.

        \(Arguments.describe(flags))
        """

    static func run(_ arguments: [String]) -> Never {
        // Before any thread exists, so that a SIGTERM during start-up waits for `runUntilTerminated`.
        HTTPServer.blockTerminationSignals()
        let args = Arguments(arguments, flags: flags, usage: usage)
        guard args.positional.isEmpty else { Console.fail("serve takes no positional arguments\n\n\(usage)") }
        let host = args.value("host") ?? "127.0.0.1"
        let port = args.integer("port", default: 8080, in: 0...65535)
        // A new booking waits for its group commit parked (a deferred response), not on a thread, so the pool is
        // sized for the CPU: two per core, at least four (rarer writes — accounts, trip steps — still block one
        // worker for a commit). More threads only add switching: 32 gave p99 40 ms where 4 give 18 ms under
        // `cab bench api` on two cores (docs/performance.md).
        let threads = args.integer("threads", default: max(4, HTTPServerConfiguration.processorCount * 2), in: 1...512)
        let data = dataDirectory(args)
        let metrics = MetricsRegistry()
        let services = ServiceLoader.load(dataDirectory: data, arguments: args, metrics: metrics)
        let publicDirectory = args.value("public") ?? "Public"
        let app = CabApplication(
            configuration: APIConfiguration(
                publicDirectory: FileManager.default.fileExists(atPath: publicDirectory) ? publicDirectory : nil),
            services: services, metrics: metrics)
        let log: @Sendable (String) -> Void = { Console.error($0) }
        // Access-log lines are written in batches by a thread of their own; errors go out at once.
        let accessLog = BufferedLineWriter()
        let server = HTTPServer(
            configuration: HTTPServerConfiguration(
                host: host, port: port, workerThreads: threads,
                maxConnectionsPerAddress: args.integer("max-per-address", default: 256, in: 0...1_000_000)),
            router: app.makeRouter(), metrics: metrics, accessLog: { accessLog.write($0) }, errorLog: log,
            errorMapper: app.errorMapper(log: log))
        // Trips a stopped server left open are dispatched or followed again before requests come in.
        do { try services.dispatch?.recoverOpenTrips() } catch { Console.fail("cannot read the open trips: \(error)", code: 74) }
        let bound: Int
        do {
            bound = try server.start()
        } catch {
            Console.fail("cannot listen on \(host):\(port): \(error.message)", code: 69)
        }
        services.tracking?.start()
        let ticker = DispatchTicker()
        if let dispatch = services.dispatch { ticker.start(dispatch) }
        Console.line("listening on http://\(host):\(bound)")
        let signal = server.runUntilTerminated()
        ticker.stop()
        services.dispatch?.waitForQueuedBookings()  // new bookings get their dispatch write before the store closes
        services.tracking?.shutdown()  // writes the queued history before the store closes
        services.store?.close()
        accessLog.close()
        Log.info("stopped", ["signal": "\(signal)"])
        exitProcess(0)
    }
}
