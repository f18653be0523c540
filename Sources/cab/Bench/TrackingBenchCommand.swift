import CabBench
import CabLoopback
import CabPlacesBench
import CabRoutingBench
import CabTracking

/// `cab bench tracking`: issue 6's figures in one run: in process (`TrackingBenchmark`: batched ingest, nearest-10
/// against a brute-force scan, bytes per driver), Redis `GEOSEARCH` on the same points when `redis-server` is
/// installed, and over HTTP (`TrackingHTTPBenchCommand.measure`: single-fix ingest, fleet-stream fan-out).
enum TrackingBenchCommand {
    static let flags: [Arguments.Flag] = [
        .init(
            name: "data", valueName: "DIR",
            help: "imported data directory for the HTTP part (default $CAB_DATA or data/cab)"),
        .init(name: "drivers", valueName: "N", help: "drivers in process (default 100000)"),
        .init(
            name: "http-drivers", valueName: "N",
            help: "driver accounts for the HTTP loads (default 30000; 0 skips HTTP)"),
        .init(name: "duration", valueName: "S", help: "seconds per HTTP load (default 10)"),
        .init(name: "connections", valueName: "N", help: "ingest connections (default 64)"),
        .init(name: "sse-clients", valueName: "N", help: "fleet-stream clients (default 5000; 0 skips)"),
        .init(name: "json", valueName: nil, help: "print one JSON object"),
    ]

    static let usage = """
        usage: cab bench tracking [--data DIR] [--drivers N] [--http-drivers N] [--sse-clients N] [--json]

        In process: N drivers loaded, batched ingest fixes/s, nearest-10 median and p99 against a brute-force scan
        in the same run, heap bytes per driver; Redis GEOSEARCH on the same points if redis-server is installed
        (a private server on a Unix socket, stopped afterwards); then the HTTP loads of `cab bench tracking-http`.

        \(Arguments.describe(flags))
        """

    static func run(_ arguments: [String]) -> Never {
        let args = Arguments(arguments, flags: flags, usage: usage)
        let drivers = args.integer("drivers", default: 100_000, in: 1_000...10_000_000)
        let httpDrivers = args.integer("http-drivers", default: 30_000, in: 0...1_000_000)
        let duration = args.integer("duration", default: 10, in: 1...3600)
        let connections = args.integer("connections", default: 64, in: 2...10_000)
        let clients = args.integer("sse-clients", default: 5000, in: 0...100_000)
        var object: [String: Any] = ["build": BenchFormat.buildMode]
        var lines = ["cab bench tracking (\(BenchFormat.buildMode) build, \(drivers) drivers in process)"]

        Console.error("in process: \(drivers) drivers")
        let r = TrackingBenchmark.run(drivers: drivers)
        object["drivers"] = r.drivers
        object["ingest_batched_per_s"] = BenchFormat.round(r.ingestBatchedPerSecond, 0)
        object["nearest10_median_us"] = BenchFormat.round(r.nearest10MedianMicroseconds, 3)
        object["nearest10_p99_us"] = BenchFormat.round(r.nearest10P99Microseconds, 3)
        object["bruteforce_nearest10_median_us"] = BenchFormat.round(r.bruteforceNearest10MedianMicroseconds, 1)
        object["bytes_per_driver"] = BenchFormat.round(r.bytesPerDriver, 1)
        object["resident_bytes_per_driver"] = r.residentBytesPerDriver.map { BenchFormat.round($0, 1) }
        lines.append("batched ingest        \(BenchFormat.rate(r.ingestBatchedPerSecond)) fixes/s (target 250,000)")
        lines.append(
            "nearest-10            median \(BenchFormat.round(r.nearest10MedianMicroseconds, 2)) µs, p99 "
                + "\(BenchFormat.round(r.nearest10P99Microseconds, 2)) µs (targets 5 / 50)")
        lines.append(
            "brute-force scan      median \(BenchFormat.round(r.bruteforceNearest10MedianMicroseconds, 1)) µs ("
                + "\(BenchFormat.round(r.bruteforceNearest10MedianMicroseconds / r.nearest10MedianMicroseconds, 0))x slower)"
        )
        lines.append(
            "memory per driver     \(BenchFormat.round(r.bytesPerDriver, 1)) B counted"
                + (r.residentBytesPerDriver.map { ", \(BenchFormat.round($0, 1)) B resident growth" } ?? "")
                + " (target 200)")

        do {
            Console.error("redis GEOSEARCH on the same points")
            if let redis = try RedisGeoBenchmark.run(
                points: TrackingBenchmark.driverPoints(count: drivers),
                queries: TrackingBenchmark.queryPoints(count: 5_000))
            {
                object["redis_geosearch10_median_us"] = BenchFormat.round(redis.medianMicroseconds, 1)
                object["redis_geosearch10_p99_us"] = BenchFormat.round(redis.p99Microseconds, 1)
                lines.append(
                    "redis \(redis.version) GEOSEARCH  median \(BenchFormat.round(redis.medianMicroseconds, 1)) µs, p99 "
                        + "\(BenchFormat.round(redis.p99Microseconds, 1)) µs per round trip (Unix socket, \(redis.queries) queries)"
                )
            } else {
                lines.append("redis                 skipped: redis-server is not installed")
            }
        } catch {
            lines.append("redis                 failed: \(error.message)")
        }

        if httpDrivers > 0 {
            do {
                try TrackingHTTPBenchCommand.measure(
                    data: dataDirectory(args), drivers: httpDrivers, duration: duration, connections: connections,
                    clients: clients, into: &object, lines: &lines)
            } catch {
                lines.append("HTTP loads failed: \(error.message)")
                object["http_error"] = error.message
            }
        }
        Console.line(args.has("json") ? BenchFormat.jsonLine(object) : lines.joined(separator: "\n"))
        exitProcess(0)
    }
}
