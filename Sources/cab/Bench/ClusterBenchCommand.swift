import CabBench
import CabLoopback
import CabRedis
import Foundation

/// `cab bench cluster`: how long a fix posted to node A takes to show in `GET /v1/drivers/nearby` on node B (two
/// `cab serve --redis` nodes over one Redis), next to the same fix shown by A itself, in one run, interleaved.
enum ClusterBenchCommand {
    static let flags: [Arguments.Flag] = [
        .init(name: "data", valueName: "DIR", help: "imported data directory (default $CAB_DATA or data/cab)"),
        .init(name: "fixes", valueName: "N", help: "fixes measured each way (default 300; one driver each)"),
        .init(name: "json", valueName: nil, help: "print one JSON object"),
    ]

    static let usage = """
        usage: cab bench cluster [--data DIR] [--fixes N] [--json]

        Starts redis-server (a Unix socket in a temporary folder, no persistence) and two `cab serve --redis` nodes
        on scratch copies of DIR (each its own SQLite store), signs up N drivers on A, then for each driver posts one
        fix to A and polls A's nearby until it shows (one node), and posts a second fix to A and polls B's nearby
        until it shows (across nodes). Prints p50/p99 of both.

        \(Arguments.describe(flags))
        """

    static func run(_ arguments: [String]) -> Never {
        let args = Arguments(arguments, flags: flags, usage: usage)
        let data = dataDirectory(args)
        let fixes = args.integer("fixes", default: 300, in: 1...100_000)
        do {
            let (local, across) = try measure(data: data, fixes: fixes)
            let object: [String: Any] = [
                "build": BenchFormat.buildMode, "fixes": fixes,
                "one_node_p50_ms": BenchFormat.round(percentile(local, 0.5), 2),
                "one_node_p99_ms": BenchFormat.round(percentile(local, 0.99), 2),
                "a_to_b_p50_ms": BenchFormat.round(percentile(across, 0.5), 2),
                "a_to_b_p99_ms": BenchFormat.round(percentile(across, 0.99), 2),
            ]
            let lines = [
                "cab bench cluster (\(BenchFormat.buildMode) build, \(fixes) fixes each way, "
                    + "2 nodes + Redis on this box)",
                String(
                    format: "fix on A -> nearby on A (one node)         p50 %.2f ms  p99 %.2f ms",
                    percentile(local, 0.5), percentile(local, 0.99)),
                String(
                    format: "fix on A -> nearby on B (over Redis)       p50 %.2f ms  p99 %.2f ms",
                    percentile(across, 0.5), percentile(across, 0.99)),
            ]
            Console.line(args.has("json") ? BenchFormat.jsonLine(object) : lines.joined(separator: "\n"))
        } catch {
            Console.fail(error.message, code: 70)
        }
        exitProcess(0)
    }

    /// Milliseconds from before each POST to the first nearby answer showing it: on A, and on B.
    static func measure(data: String, fixes: Int) throws(BenchError) -> (local: [Double], across: [Double]) {
        let centre = MapPoints.centralPair(dataDirectory: data)?.0 ?? APIBenchCommand.fallbackPair.0
        let redis = try BenchRedis()
        defer { redis.stop() }
        let scratchA = try ScratchDataDirectory(linkingFrom: data)
        let scratchB = try ScratchDataDirectory(linkingFrom: data)
        defer {
            scratchA.remove()
            scratchB.remove()
        }
        let a = try LoopbackServer(
            dataDirectory: scratchA.path, extraArguments: ["--redis", redis.url, "--node-id", "bench-a"])
        defer { a.stop() }
        let b = try LoopbackServer(
            dataDirectory: scratchB.path, extraArguments: ["--redis", redis.url, "--node-id", "bench-b"])
        defer { b.stop() }
        Console.error("registering \(fixes) drivers on A")
        let tokens = try TrackingHTTPBenchmark.registerDrivers(server: a, count: fixes)
        let dispatcherA = try TrackingHTTPBenchmark.createDispatcher(dataDirectory: scratchA.path)
        let dispatcherB = try TrackingHTTPBenchmark.createDispatcher(dataDirectory: scratchB.path)
        let clientA = LoopbackHTTPClient(port: a.port)
        let clientB = LoopbackHTTPClient(port: b.port)
        var local: [Double] = []
        var across: [Double] = []
        var ids: [String] = []
        for token in tokens.prefix(fixes) {
            let me = try clientA.send("GET", "/v1/me", headers: [("Authorization", "Bearer \(token)")])
            guard let id = me.jsonObject?["id"] as? String else {
                throw BenchError("GET /v1/me: \(me.status) \(me.text)")
            }
            ids.append(id)
        }
        for (i, token) in tokens.prefix(fixes).enumerated() {
            // Drivers on a grid about 110 m apart: the driver is among the 3 nearest to its own new point.
            let lat = centre.latitude + Double(i / 20) * 0.001
            let lon = centre.longitude + Double(i % 20) * 0.002
            local.append(
                try postAndWait(
                    driver: ids[i], token: token, lat: lat, lon: lon, secondsAgo: 2, to: clientA, seenBy: clientA,
                    dispatcher: dispatcherA))
            // A random pause first, so that the post does not fall at the same point of A's 20 ms publishing
            // cycle every time (the loop would otherwise lock to it).
            usleep(UInt32.random(in: 0..<20_000))
            across.append(
                try postAndWait(
                    driver: ids[i], token: token, lat: lat + 0.0002, lon: lon, secondsAgo: 0, to: clientA,
                    seenBy: clientB, dispatcher: dispatcherB))
        }
        return (local, across)
    }

    private static func postAndWait(
        driver: String, token: String, lat: Double, lon: Double, secondsAgo: Double, to poster: LoopbackHTTPClient,
        seenBy reader: LoopbackHTTPClient, dispatcher: String
    ) throws(BenchError) -> Double {
        let time = Date().addingTimeInterval(-secondsAgo)
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let fix: [String: Any] = ["lat": lat, "lon": lon, "time": formatter.string(from: time), "accuracy": 5]
        let started = monotonicSeconds()
        let posted = try poster.send(
            "POST", "/v1/driver/locations", headers: [("Authorization", "Bearer \(token)")], json: ["fixes": [fix]])
        guard posted.status == 200 else {
            throw BenchError("POST /v1/driver/locations answered \(posted.status): \(posted.text)")
        }
        let path = "/v1/drivers/nearby?lat=\(lat)&lon=\(lon)&k=3"
        while monotonicSeconds() - started < 10 {
            let answer = try reader.send("GET", path, headers: [("Authorization", "Bearer \(dispatcher)")])
            if let drivers = answer.jsonObject?["drivers"] as? [[String: Any]],
                let entry = drivers.first(where: { $0["id"] as? String == driver }),
                let position = entry["position"] as? [String: Any],
                let seen = position["lat"] as? Double, abs(seen - lat) < 1e-6
            {
                return (monotonicSeconds() - started) * 1_000
            }
        }
        throw BenchError("a fix at \(lat),\(lon) was not seen within 10 s")
    }

    private static func percentile(_ values: [Double], _ p: Double) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return .nan }
        return sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * p).rounded()))]
    }
}

/// `redis-server` for the benchmark: a Unix socket in a temporary folder, no persistence.
private final class BenchRedis {
    let directory: String
    let child: ChildProcess
    var url: String { "unix://\(directory)/redis.sock" }

    init() throws(BenchError) {
        var template = Array(temporaryPath("cab-redis-XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else { throw BenchError("cannot create a temporary directory") }
        directory = String(cString: made)
        guard
            let binary = ["/usr/bin/redis-server", "/usr/sbin/redis-server"].first(where: {
                FileManager.default.isExecutableFile(atPath: $0)
            })
        else { throw BenchError("redis-server not found: run scripts/install-deps.sh --test") }
        child = try ChildProcess(
            executable: binary,
            arguments: [
                "--port", "0", "--unixsocket", "\(directory)/redis.sock", "--save", "", "--appendonly", "no", "--dir",
                directory,
            ], standardOutput: .file("\(directory)/log"))
        let endpoint = RedisEndpoint(address: .unix(path: "\(directory)/redis.sock"))
        for _ in 0..<500 {
            if (try? RedisConnection(endpoint, timeoutMilliseconds: 200)) != nil { return }
            usleep(10_000)
        }
        _ = child.stop(signal: SIGKILL)
        throw BenchError("redis-server did not start (see \(directory)/log)")
    }

    func stop() {
        _ = child.stop()
        try? FileManager.default.removeItem(atPath: directory)
    }
}
