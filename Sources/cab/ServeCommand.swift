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
        .init(
            name: "public", valueName: "DIR",
            help: "web app directory (default $CAB_PUBLIC, else Public/ in the working directory, beside the "
                + "executable or above it, or share/swiftcab/Public of the install prefix)"),
        .init(name: "tariff", valueName: "FILE", help: "tariff JSON file (default: 1.20 EUR per km)"),
        .init(name: "pickup-overdue", valueName: "S", help: "seconds past the promised pickup before a trip is re-dispatched (default 600)"),
        .init(name: "arrival-radius", valueName: "M", help: "how near the pickup, in metres, a driver must be to mark arrival (default 150)"),
        .init(name: "arrival-fix-age", valueName: "S", help: "how fresh, in seconds, that driver's position must be (default 60)"),
        .init(name: "max-per-address", valueName: "N", help: "connections open at once from one address (default 256; 0: no cap)"),
        .init(
            name: "handler-threads", valueName: "N",
            help: "threads running handlers that may block (default: 4 per core, at least 16; 0 runs them on the epoll threads)"),
    ]

    static let usage = """
        usage: cab serve [--data DIR] [--host H] [--port N] [--public DIR]

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
        let publicDirectory = webAppDirectory(args)  // before loading anything: a wrong --public stops at once
        let metrics = MetricsRegistry()
        let services = ServiceLoader.load(dataDirectory: data, arguments: args, metrics: metrics)
        let app = CabApplication(
            configuration: APIConfiguration(publicDirectory: publicDirectory), services: services, metrics: metrics)
        let log: @Sendable (String) -> Void = { Console.error($0) }
        // Access-log lines are written in batches by a thread of their own; errors go out at once.
        let accessLog = BufferedLineWriter()
        let server = HTTPServer(
            configuration: HTTPServerConfiguration(
                host: host, port: port, workerThreads: threads,
                maxConnectionsPerAddress: args.integer("max-per-address", default: 256, in: 0...1_000_000),
                handlerThreads: args.integer(
                    "handler-threads", default: HTTPServerConfiguration.defaultHandlerThreads, in: 0...4096)),
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

    /// The web app's folder (one holding `index.html`): `--public DIR` or `$CAB_PUBLIC` when given (exits 64 when
    /// it holds no web app), else the first of `Public/` in the working directory, beside the executable or up to
    /// four folders above it (`.build/<triple>/debug/cab` in a checkout), and `share/swiftcab/Public` of the
    /// install prefix (`/usr/local/bin/cab` → `/usr/local/share/swiftcab/Public`). Logs where it serves from, or
    /// a warning naming the places it looked when there is none (the API still runs; `GET /` is then 404).
    static func webAppDirectory(_ args: Arguments) -> String? {
        let files = FileManager.default
        let holdsWebApp = { (folder: String) in
            files.fileExists(atPath: (folder as NSString).appendingPathComponent("index.html"))
        }
        let environment = ProcessInfo.processInfo.environment["CAB_PUBLIC"].flatMap { $0.isEmpty ? nil : $0 }
        if let given = args.value("public") ?? environment {
            let source = args.value("public") != nil ? "--public" : "CAB_PUBLIC"
            guard holdsWebApp(given) else {
                Console.fail("\(source) \(given): no index.html there; point it at the web app's Public folder")
            }
            Log.info("serving the web app", ["public": given, "from": source])
            return given
        }
        var candidates = [(files.currentDirectoryPath as NSString).appendingPathComponent("Public")]
        if let executable = try? files.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            var folder = (executable as NSString).deletingLastPathComponent
            for _ in 0..<5 {
                candidates.append((folder as NSString).appendingPathComponent("Public"))
                candidates.append((folder as NSString).appendingPathComponent("share/swiftcab/Public"))
                let parent = (folder as NSString).deletingLastPathComponent
                if parent == folder { break }
                folder = parent
            }
        }
        if let found = candidates.first(where: holdsWebApp) {
            let resolved = (found as NSString).standardizingPath
            Log.info("serving the web app", ["public": resolved])
            return resolved
        }
        Log.warning(
            "no web app found: GET / answers 404; pass --public DIR or set CAB_PUBLIC",
            ["looked_in": candidates.map { ($0 as NSString).standardizingPath }.joined(separator: ", ")])
        return nil
    }
}
