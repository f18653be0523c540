import ArgumentParser
import CabAPI
import CabCore
import CabDispatch
import CabHTTP
import Foundation
import Logging

/// `cab serve`: loads the data directory and serves the API and web app until SIGTERM/SIGINT.
struct ServeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve the HTTP API and the web app.",
        discussion: """
            Prints `listening on http://H:PORT` as the first line of standard output once ready; stops gracefully \
            on SIGTERM or SIGINT, finishing requests in flight.

            Every setting has a key in the configuration file (--config FILE, JSON), an environment variable \
            (CAB_ and the key in capitals, e.g. CAB_DISPATCH_BATCH_SIZE) and some a flag below; a flag wins over \
            the environment, which wins over the file. --print-config shows what is in force; \
            docs/configuration.md lists every key.
            """)

    @Option(help: ArgumentHelp("JSON configuration file (see docs/configuration.md)", valueName: "FILE"))
    var config: String?

    @Flag(
        name: .customLong("print-config"),
        help: "print the settings in force (file, environment, flags) as JSON and exit")
    var printConfig = false

    @Flag(
        name: .customLong("config-reference"),
        help: ArgumentHelp("print docs/configuration.md's key table", visibility: .hidden))
    var configReference = false

    @Option(
        help: Self.help("data_dir", "data directory (imported map and store)", "DIR"))
    var data: String?
    @Option(help: Self.help("http.host", "address to listen on (0.0.0.0 for all)", "H"))
    var host: String?
    @Option(help: Self.help("http.port", "port (0 picks a free one)", "N"))
    var port: String?
    @Option(help: Self.help("http.threads", "worker threads", "N"))
    var threads: String?
    @Option(
        help: Self.help(
            "public_dir",
            "web app directory (when not given: Public/ in the working directory, beside the executable or above "
                + "it, or share/swiftcab/Public of the install prefix)", "DIR"))
    var `public`: String?
    @Option(help: Self.help("tariff_file", "tariff JSON file (when not given: 1.20 EUR per km)", "FILE"))
    var tariff: String?
    @Option(
        name: .customLong("pickup-overdue"),
        help: Self.help(
            "trip.pickup_overdue_seconds",
            "seconds past the promised pickup before a trip is re-dispatched", "S"))
    var pickupOverdue: String?
    @Option(
        name: .customLong("arrival-radius"),
        help: Self.help(
            "trip.arrival_radius_m", "how near the pickup, in metres, a driver must be to mark arrival",
            "M"))
    var arrivalRadius: String?
    @Option(
        name: .customLong("arrival-fix-age"),
        help: Self.help(
            "trip.arrival_fix_max_age_seconds", "how fresh, in seconds, that driver's position must be",
            "S"))
    var arrivalFixAge: String?
    @Option(
        name: .customLong("max-per-address"),
        help: Self.help(
            "http.max_connections_per_address", "connections open at once from one address (0: no cap)",
            "N"))
    var maxPerAddress: String?
    @Option(
        name: .customLong("handler-threads"),
        help: Self.help(
            "http.handler_threads", "threads running handlers that may block (0 runs them on the event-loop threads)",
            "N"))
    var handlerThreads: String?
    @Option(
        name: .customLong("postgres"),
        help: Self.help("store.postgres_url", "keep the durable data in PostgreSQL at this libpq URL", "URL"))
    var postgres: String?
    @Option(
        name: .customLong("redis"),
        help: Self.help("cluster.redis_url", "share live positions with other nodes over Redis at this URL", "URL"))
    var redis: String?
    @Option(
        name: .customLong("node-id"),
        help: Self.help("cluster.node_id", "this node's id in the cluster", "ID"))
    var nodeID: String?
    @Option(
        name: .customLong("log-level"),
        help: Self.help(
            "log_level", "least severe log level written: trace, debug, info, notice, warning, error, critical", "LEVEL"
        ))
    var logLevel: String?

    /// A flag's help, naming the configuration key it sets.
    static func help(_ key: String, _ text: String, _ valueName: String) -> ArgumentHelp {
        // `!`: every flag here names a key of the catalogue (ServeSettingsTests checks the flags against it).
        let setting = SettingKey.named(key)!
        return ArgumentHelp(
            "\(text); default \(setting.defaultText) (key \(key), $\(setting.environment))", valueName: valueName)
    }

    /// The flags given, by name without `--` (the settings map them to keys, `SettingKey.flag`).
    var givenFlags: [String: String] {
        let pairs: [(String, String?)] = [
            ("data", data), ("host", host), ("port", port), ("threads", threads), ("public", `public`),
            ("tariff", tariff), ("pickup-overdue", pickupOverdue), ("arrival-radius", arrivalRadius),
            ("arrival-fix-age", arrivalFixAge), ("max-per-address", maxPerAddress), ("log-level", logLevel),
            ("handler-threads", handlerThreads), ("postgres", postgres), ("redis", redis), ("node-id", nodeID),
        ]
        return Dictionary(uniqueKeysWithValues: pairs.compactMap { name, value in value.map { (name, $0) } })
    }

    func run() throws {
        // Before any thread exists, so that a SIGTERM during start-up waits for `runUntilTerminated`.
        HTTPServer.blockTerminationSignals()
        if configReference {
            Console.line(SettingKey.referenceTable)
            exitProcess(0)
        }
        let settings: ServeSettings
        do {
            settings = try ServeSettings.load(
                configPath: config, environment: ProcessInfo.processInfo.environment, flags: givenFlags)
        } catch {
            Console.fail(
                "\(error.message)\nRun `cab serve --help` for the flags; docs/configuration.md lists every key.")
        }
        if printConfig {
            Console.line(settings.json())
            exitProcess(0)
        }
        Log.bootstrap(level: settings.logLevel)
        Self.serve(settings)
    }

    static func serve(_ settings: ServeSettings) -> Never {
        let http = settings.http
        let data = settings.dataDirectory
        let publicDirectory = webAppDirectory(settings)  // before loading anything: a wrong --public stops at once
        let metrics = MetricsRegistry()
        var services = ServiceLoader.load(dataDirectory: data, settings: settings, metrics: metrics)
        // A node with another map or tariff than the city's live nodes stops here, before it serves or dispatches.
        let membership = settings.cluster.map {
            ServiceLoader.joinMembership($0, dataDirectory: data, services: services)
        }
        let revocations = settings.cluster.flatMap { cluster in
            services.store.map { ServiceLoader.followRevocations(cluster, store: $0) }
        }
        services.revocations = revocations.map(RedisTokenRevocationBus.init)
        let leases = settings.cluster.flatMap { cluster in
            (services.store as? any ShardLeaseRepository & FencedDispatchRepository).map {
                ServiceLoader.leaseKeeper(cluster, repository: $0, dispatch: services.dispatch)
            }
        }
        services.shards = leases
        let app = CabApplication(
            configuration: APIConfiguration(publicDirectory: publicDirectory), services: services, metrics: metrics)
        let log = Log.logger.jsonLineClosure()
        // Access-log lines are written in batches by a thread of their own (measured: docs/performance.md), at
        // info; errors go out at once through the logger.
        let accessLog = BufferedLineWriter()
        let accessLogLine: (@Sendable (String) -> Void)? =
            Log.level <= .info ? { @Sendable line in accessLog.write(line) } : nil
        let server = HTTPServer(
            configuration: http,
            router: app.makeRouter(), metrics: metrics, accessLog: accessLogLine, errorLog: log,
            errorMapper: app.errorMapper(log: log))
        // Trips a stopped server left open are dispatched or followed again before requests come in.
        do { try services.dispatch?.recoverOpenTrips() } catch {
            Console.fail("cannot read the open trips: \(error)", code: 74)
        }
        let bound: Int
        do {
            bound = try server.start()
        } catch {
            Console.fail("cannot listen on \(http.host):\(http.port): \(error.message)", code: 69)
        }
        services.tracking?.start()
        leases?.start()
        if let tracking = services.tracking, let cluster = settings.cluster {
            ServiceLoader.joinCluster(cluster, tracking: tracking, settings: settings, metrics: metrics)
        }
        let ticker = DispatchTicker()
        if let dispatch = services.dispatch { ticker.start(dispatch) }
        Console.line("listening on http://\(http.host):\(bound)")
        let signal = server.runUntilTerminated()
        ticker.stop()
        services.dispatch?.waitForQueuedBookings()  // new bookings get their dispatch write before the store closes
        services.tracking?.replication?.stop()  // a last send of the positions queued for the other nodes
        leases?.stop()  // every shard's lease released: the other nodes take them over within their next round
        membership?.leave()
        revocations?.stop()
        services.tracking?.shutdown()  // writes the queued history before the store closes
        services.store?.close()
        accessLog.close()
        Log.info("stopped", ["signal": "\(signal)"])
        exitProcess(0)
    }

    /// The web app's folder (one holding `index.html`): `public_dir` when given (`--public DIR`, `$CAB_PUBLIC` or
    /// the file; exits 64 when it holds no web app), else the first of `Public/` in the working directory, beside
    /// the executable or up to four folders above it (`.build/<triple>/debug/cab` in a checkout), and
    /// `share/swiftcab/Public` of the install prefix (`/usr/local/bin/cab` → `/usr/local/share/swiftcab/Public`).
    /// Logs where it serves from, or a warning naming the places it looked when there is none (the API still
    /// runs; `GET /` is then 404).
    static func webAppDirectory(_ settings: ServeSettings) -> String? {
        let files = FileManager.default
        let holdsWebApp = { (folder: String) in
            files.fileExists(atPath: (folder as NSString).appendingPathComponent("index.html"))
        }
        if let given = settings.string("public_dir") {
            let source: String
            switch settings.source(of: "public_dir") {
            case .flag: source = "--public"
            case .environment(let name): source = name
            case .file(let path): source = "public_dir (in \(path))"
            case .defaults: source = "public_dir"
            }
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
