import CabGeo
import CabLoopback
import Foundation

/// `cab bench api`'s measurements: `GET /healthz` requests/s as the server's ceiling, then durable bookings per
/// second and their latency at a fixed number of connections, against a `cab serve` child on a scratch copy of
/// an imported data directory.
package struct APIBenchmark {
    /// What to run.
    package struct Configuration {
        /// The imported data directory (linked, never written: bookings go to a scratch store).
        package var dataDirectory: String
        package var durationSeconds = 10
        package var connections = 64
        package var wrkThreads = 2
        /// Riders the bookings are spread over.
        package var riders = 16
        package var pickup: Coordinate
        package var dropoff: Coordinate
        /// Where the server's standard error goes.
        package var serverLog = "/dev/null"
        /// `cab serve --threads`; nil keeps serve's default.
        package var serverThreads: Int?
        /// `cab serve --postgres URL`: the durable data in PostgreSQL instead of the scratch SQLite store.
        package var postgresURL: String?
        /// The `cab` binary that serves (`--serve-with`: another build, measured under this build's load); nil:
        /// this executable.
        package var serverExecutable: String?

        /// Creates one from every stored property (what the memberwise initializer was in `cab`).
        package init(
            dataDirectory: String, durationSeconds: Int = 10, connections: Int = 64, wrkThreads: Int = 2,
            riders: Int = 16, pickup: Coordinate, dropoff: Coordinate, serverLog: String = "/dev/null",
            serverThreads: Int? = nil
        ) {
            self.dataDirectory = dataDirectory
            self.durationSeconds = durationSeconds
            self.connections = connections
            self.wrkThreads = wrkThreads
            self.riders = riders
            self.pickup = pickup
            self.dropoff = dropoff
            self.serverLog = serverLog
            self.serverThreads = serverThreads
        }
    }

    /// What was measured; nil bookings figures when the endpoints are not there (`bookingsNote` says why).
    package struct Result {
        package var healthz: WrkResult
        package var bookings: WrkResult?
        package var bookingsNote: String?
        package var pairs: Int
        package var serverPeakResidentBytes: Int?
        package var connections: Int
        package var durationSeconds: Int
        package var serverThreads: Int?
        /// The disk's fdatasync latency before any load (`DiskSyncProbe`), nil when it could not be measured.
        package var diskSync: DiskSyncProbe.Result?
        /// The same probe, paced, in the same directory while the bookings ran.
        package var diskSyncDuringBookings: DiskSyncProbe.Result?
    }

    package let configuration: Configuration
    /// Progress lines (to standard error).
    package var progress: (String) -> Void = { standardError($0) }

    /// Starts the server, runs both loads, stops the server and removes the scratch directory.
    package func run() throws(BenchError) -> Result {
        let scratch = try ScratchDataDirectory(linkingFrom: configuration.dataDirectory)
        defer { scratch.remove() }
        progress("disk fdatasync baseline for 2 s in \(scratch.path)")
        let diskSync = DiskSyncProbe.measure(in: scratch.path)
        progress("cab bench api: server on \(scratch.path) (linked: \(scratch.linked.joined(separator: ", ")))")
        let server = try LoopbackServer(
            executable: configuration.serverExecutable ?? LoopbackServer.currentExecutable(),
            dataDirectory: scratch.path,
            extraArguments: (configuration.serverThreads.map { ["--threads", "\($0)"] } ?? [])
                + (configuration.postgresURL.map { ["--postgres", $0] } ?? []),
            logPath: configuration.serverLog)
        defer { server.stop() }
        let wrk = WrkRunner(
            threads: configuration.wrkThreads, connections: configuration.connections,
            durationSeconds: configuration.durationSeconds)
        progress("GET /healthz for \(configuration.durationSeconds) s at \(configuration.connections) connections")
        let healthz = try wrk.run(baseURL: server.baseURL, script: .fixed(method: "GET", path: "/healthz"))

        let client = LoopbackHTTPClient(port: server.port)
        var bookings: WrkResult?
        var note: String?
        var pairs = 0
        var diskDuring: DiskSyncProbe.Result?
        switch try prepareBookings(client) {
        case .unavailable(let why):
            note = why
        case .ready(let tokens, let bodies):
            pairs = bodies.count
            progress(
                "POST /v1/bookings for \(configuration.durationSeconds) s, \(tokens.count) riders, \(pairs) routes")
            let script = WrkScript.uniqueKeyRequests(
                method: "POST", path: "/v1/bookings", bearerTokens: tokens, bodies: bodies,
                keyPrefix: "bench-\(UInt64.random(in: 0...UInt64.max))")
            let probe = DiskSyncProbe.During(directory: scratch.path, seconds: Double(configuration.durationSeconds))
            bookings = try wrk.run(baseURL: server.baseURL, script: script)
            diskDuring = probe.result()
        }
        let peak = server.peakResidentBytes()
        return Result(
            healthz: healthz, bookings: bookings, bookingsNote: note, pairs: pairs, serverPeakResidentBytes: peak,
            connections: configuration.connections, durationSeconds: configuration.durationSeconds,
            serverThreads: configuration.serverThreads, diskSync: diskSync,
            diskSyncDuringBookings: diskDuring)
    }

    private enum Preparation {
        case unavailable(String)
        case ready(tokens: [String], bodies: [String])
    }

    /// Creates the riders and finds pickup/dropoff pairs the server books (one probe booking each).
    private func prepareBookings(_ client: LoopbackHTTPClient) throws(BenchError) -> Preparation {
        var tokens: [String] = []
        for n in 0..<configuration.riders {
            let answer = try client.send("POST", "/v1/riders", json: ["name": "Bench Rider \(n)"])
            guard answer.status == 201 || answer.status == 200, let token = answer.jsonObject?["token"] as? String
            else { return .unavailable(Self.unavailable("POST /v1/riders", answer)) }
            tokens.append(token)
        }
        var bodies: [String] = []
        var lastRefusal: String?
        for (pickup, dropoff) in candidatePairs() {
            let body = Self.bookingBody(pickup: pickup, dropoff: dropoff)
            let answer = try client.send(
                "POST", "/v1/bookings",
                headers: [
                    ("Authorization", "Bearer \(tokens[0])"),
                    ("Idempotency-Key", "probe-\(bodies.count)-\(UInt32.random(in: 0...UInt32.max))"),
                ],
                json: try Self.jsonObject(body))
            if answer.status == 404 || answer.status == 405 || answer.status == 503 {
                return .unavailable(Self.unavailable("POST /v1/bookings", answer))
            }
            if answer.status == 201 || answer.status == 200 {
                bodies.append(body)
            } else {
                lastRefusal = "\(answer.status): \(Self.detail(answer))"
            }
        }
        guard !bodies.isEmpty else {
            return .unavailable(
                "no pickup/dropoff pair near \(configuration.pickup) was booked (last answer \(lastRefusal ?? "none")); "
                    + "pass --pickup and --dropoff inside the imported map")
        }
        return .ready(tokens: tokens, bodies: bodies)
    }

    /// The configured pair and seven variants moved by up to ~300 m, so the load is not one cached route.
    package func candidatePairs() -> [(Coordinate, Coordinate)] {
        let offsets: [(Double, Double)] = [
            (0, 0), (0.002, 0.001), (-0.002, 0.002), (0.001, -0.003), (-0.001, -0.001), (0.003, 0.0),
            (0.0, 0.003), (-0.003, -0.002),
        ]
        return offsets.enumerated().map { i, o in
            let sign = i % 2 == 0 ? 1.0 : -1.0
            return (
                Coordinate(
                    latitude: configuration.pickup.latitude + o.0, longitude: configuration.pickup.longitude + o.1),
                Coordinate(
                    latitude: configuration.dropoff.latitude + sign * o.1,
                    longitude: configuration.dropoff.longitude + sign * o.0)
            )
        }
    }

    package static func bookingBody(pickup: Coordinate, dropoff: Coordinate) -> String {
        func point(_ c: Coordinate) -> String {
            "{\"lat\": \((c.latitude * 1e6).rounded() / 1e6), \"lon\": \((c.longitude * 1e6).rounded() / 1e6)}"
        }
        return "{\"pickup\": \(point(pickup)), \"dropoff\": \(point(dropoff)), \"pickup_name\": \"Bench pickup\"}"
    }

    private static func jsonObject(_ text: String) throws(BenchError) -> Any {
        do {
            return try JSONSerialization.jsonObject(with: Data(text.utf8))
        } catch {
            throw BenchError("generated an invalid booking body: \(text)")
        }
    }

    package static func detail(_ answer: LoopbackHTTPClient.Response) -> String {
        (answer.jsonObject?["detail"] as? String) ?? String(answer.text.prefix(200))
    }

    package static func unavailable(_ endpoint: String, _ answer: LoopbackHTTPClient.Response) -> String {
        if answer.status == 404 { return "bookings endpoint not available (404 from \(endpoint))" }
        return "bookings endpoint not available (\(answer.status) from \(endpoint): \(detail(answer)))"
    }

    /// Creates one from every stored property (what the memberwise initializer was in `cab`).
    package init(configuration: Configuration, progress: @escaping (String) -> Void = { standardError($0) }) {
        self.configuration = configuration
        self.progress = progress
    }
}
