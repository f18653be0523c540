import CabBench
import CabClient
import CabCore
import CabGeo
import CabImport
import CabLoopback
import CabRedis
import CabRouting
import Foundation
import Synchronization

/// What `cab bench cluster` does: starts the servers, sets up the trips, runs the background fleet and times the
/// fixes (see `ClusterBenchCommand.usage`).
struct ClusterBenchRun {
    let dataDirectory: String
    let fixes: Int
    let backgroundDrivers: Int

    struct Result {
        var fixes = 0
        var backgroundDrivers = 0
        var singleToStream = LatencySamples()
        var clusterToStreamOnA = LatencySamples()
        var clusterToStreamOnC = LatencySamples()
        var singleMissed = 0
        var missedOnA = 0
        var missedOnC = 0
        /// The node (`bench-a`...) holding the cluster trip's dispatch shard at the end.
        var tripOwner: String?
        var nearbyOnA = LatencySamples()
        var nearbyOnB = LatencySamples()
        var fleet: LeanFleet.Summary?
        var redisMemoryBefore: Int64 = 0
        var redisMemoryAfter: Int64 = 0
        var redisBytesPerDriver: Double?
        var redisCPUSeconds = 0.0
        var runSeconds = 0.0

        /// Whether the background fleet's steady rate reached 95% of drivers / 20 s with no upload failing.
        var keptUp: Bool {
            guard let f = fleet else { return true }
            return f.failedUploads == 0 && f.steadyFixesPerSecond >= 0.95 * f.expectedFixesPerSecond
        }
    }

    /// Seconds between one background driver's fixes.
    static let backgroundRateSeconds = 20.0
    static let nodeNames = ["bench-a", "bench-b", "bench-c"]

    func run(progress: @escaping @Sendable (String) -> Void) throws(BenchError) -> Result {
        let (pickup, dropoff) = MapPoints.centralPair(dataDirectory: dataDirectory) ?? APIBenchCommand.fallbackPair
        let redis = try BenchRedis()
        defer { redis.stop() }
        let postgres = try BenchPostgres()
        defer { postgres.stop() }
        // The measured drivers post a fix every turn, several a second: above the default ingest limit.
        let config = "\(redis.directory)/bench-node.json"
        let settings = #"{"tracking": {"ingest": {"rate_limit_burst": 1000, "rate_limit_batches_per_second": 1000}}}"#
        guard FileManager.default.createFile(atPath: config, contents: Data(settings.utf8)) else {
            throw BenchError("cannot write \(config)")
        }
        var scratches: [ScratchDataDirectory] = []
        defer { for s in scratches { s.remove() } }
        for _ in 0..<4 { scratches.append(try ScratchDataDirectory(linkingFrom: dataDirectory)) }
        // The nodes' logs stay after the run (a node that died is found there).
        let logs = FileManager.default.temporaryDirectory.appendingPathComponent("cab-bench-cluster-\(getpid())").path
        do {
            try FileManager.default.createDirectory(atPath: logs, withIntermediateDirectories: true)
        } catch {
            throw BenchError("cannot create \(logs): \(error)")
        }
        progress("starting 3 nodes over PostgreSQL and Redis, and 1 single node; their logs in \(logs)")
        var nodes: [LoopbackServer] = []
        defer { for n in nodes { n.stop() } }
        for (i, name) in Self.nodeNames.enumerated() {
            nodes.append(
                try LoopbackServer(
                    dataDirectory: scratches[i].path,
                    extraArguments: [
                        "--postgres", postgres.conninfo, "--redis", redis.url, "--node-id", name, "--config", config,
                    ], logPath: "\(logs)/\(name).log"))
        }
        let single = try LoopbackServer(
            dataDirectory: scratches[3].path, extraArguments: ["--config", config], logPath: "\(logs)/single.log")
        defer { single.stop() }
        let (a, b, c) = (nodes[0], nodes[1], nodes[2])
        let dispatcher = try TrackingHTTPBenchmark.createDispatcher(store: ["--postgres", postgres.conninfo])
        try Self.waitForShards(nodes)

        let info: RedisConnection
        do {
            info = try RedisConnection(
                RedisEndpoint(address: .unix(path: "\(redis.directory)/redis.sock")), timeoutMilliseconds: 5_000)
        } catch {
            throw BenchError("cannot connect to the bench's Redis: \(error)")
        }
        var result = Result()
        result.fixes = fixes
        result.backgroundDrivers = backgroundDrivers
        let started = monotonicSeconds()
        result.redisMemoryBefore = try Self.info(info, "memory").usedMemoryBytes ?? 0
        let cpuBefore = try Self.info(info, "cpu").usedCPUSeconds ?? 0

        // The background fleet, until the measures are done.
        let stop = LeanFleetStop()
        let fleetDone = DispatchSemaphore(value: 0)
        let fleetSummary = SummaryBox()
        var fleetJoined = false
        if backgroundDrivers > 0 {
            let signedUp = DispatchSemaphore(value: 0)
            var configuration = LeanFleet.Configuration(
                ports: nodes.map(\.port), drivers: backgroundDrivers, rateSeconds: Self.backgroundRateSeconds,
                durationSeconds: 24 * 3600)
            configuration.threadsPerNode = 2
            configuration.stop = stop
            let fleet = LeanFleet(configuration: configuration, junctions: try junctions())
            Thread.detachNewThread {
                let summary = fleet.run { line in
                    progress("background: " + line)
                    if line.contains("signed up") { signedUp.signal() }
                }
                fleetSummary.value.withLock { $0 = summary }
                fleetDone.signal()
            }
            signedUp.wait()
            progress("background: waiting \(Int(Self.backgroundRateSeconds)) s for every driver's first fix")
            Thread.sleep(forTimeInterval: Self.backgroundRateSeconds + 1)  // one period: every driver has reported
            result.redisMemoryAfter = try Self.info(info, "memory").usedMemoryBytes ?? 0
            result.redisBytesPerDriver =
                Double(result.redisMemoryAfter - result.redisMemoryBefore) / Double(backgroundDrivers)
        } else {
            fleetDone.signal()
        }
        defer {
            if !fleetJoined {
                stop.request()
                fleetDone.wait()
            }
        }

        // 1. A fix to a rider's stream.
        progress("accepting a trip on the cluster (driver on A, rider streams on A and C) and on the single node")
        // The trip on a shard B owns: a fix posted to A reaches the trip's follower on B over Redis, and B's
        // notification reaches the rider's stream on C over Redis again, the longest way (a trip A owned would
        // skip the first hop). A trip booked elsewhere is cancelled and another booked, up to 20 times.
        var onCluster = try Self.acceptedTrip(on: a, pickup: pickup, dropoff: dropoff)
        for _ in 0..<20 where Self.owner(of: onCluster.trip, nodes: nodes) != Self.nodeNames[1] {
            let cancelled = try LoopbackHTTPClient(port: a.port).send(
                "POST", "/v1/bookings/\(onCluster.trip)/cancel",
                headers: [("Authorization", "Bearer \(onCluster.riderToken)")], json: [String: Any]())
            guard cancelled.status == 200 else {
                throw BenchError("cancelling trip \(onCluster.trip) answered \(cancelled.status): \(cancelled.text)")
            }
            onCluster = try Self.acceptedTrip(on: a, pickup: pickup, dropoff: dropoff)
        }
        let onSingle = try Self.acceptedTrip(on: single, pickup: pickup, dropoff: dropoff)
        let streamA = try Self.riderStream(onCluster, on: a)
        defer { streamA.stop() }
        let streamC = try Self.riderStream(onCluster, on: c)
        defer { streamC.stop() }
        let streamSingle = try Self.riderStream(onSingle, on: single)
        defer { streamSingle.stop() }
        progress("timing \(fixes) fixes to the riders' streams")
        let clientA = LoopbackHTTPClient(port: a.port)
        // The measured fixes go over one keep-alive connection per node, as a driver's app sends them (and without
        // a connection's set-up in the measure).
        var uploadsA = KeepAliveConnection(port: a.port)
        var uploadsSingle = KeepAliveConnection(port: single.port)
        for i in 0..<fixes {
            // At a random moment of the 20 ms publishing cycle and of the 500 ms dispatch tick, and at least 50 ms
            // after the previous fix (1.1 m in less than 16 ms is over the ingest's 70 m/s).
            usleep(UInt32.random(in: 50_000..<550_000))
            // 1.1 m back and forth beside the pickup: every fix a new position.
            let lat = pickup.latitude + (i.isMultiple(of: 2) ? 0.00001 : 0.00002)
            let postedSingle = monotonicSeconds()
            try Self.post(onSingle.driverToken, lat: lat, lon: pickup.longitude, over: &uploadsSingle)
            let postedA = monotonicSeconds()
            try Self.post(onCluster.driverToken, lat: lat, lon: pickup.longitude, over: &uploadsA)
            for (stream, posted, samples, missed) in [
                (streamSingle, postedSingle, \Result.singleToStream, \Result.singleMissed),
                (streamA, postedA, \Result.clusterToStreamOnA, \Result.missedOnA),
                (streamC, postedA, \Result.clusterToStreamOnC, \Result.missedOnC),
            ] {
                if let seen = stream.next(timeoutSeconds: 10, matching: { Self.isPosition($0, latitude: lat) }) {
                    result[keyPath: samples].add((seen.seconds - posted) * 1_000)
                } else {
                    result[keyPath: missed] += 1
                }
            }
        }
        result.tripOwner = Self.owner(of: onCluster.trip, nodes: nodes)

        // 2. A fix to nearby.
        progress("timing \(fixes) fixes to nearby on A and on B")
        let clientB = LoopbackHTTPClient(port: b.port)
        // One driver a pair, as the old two-node bench did: the second fix 22 m and 2 s after the first.
        for i in 0..<fixes {
            let (id, token) = try Self.signUpDriver(on: a, name: "Bench nearby \(i + 1)")
            // On a grid about 110 m apart: the driver is among the 3 nearest to its own new point.
            let lat = dropoff.latitude + Double(i / 20) * 0.001
            let lon = dropoff.longitude + Double(i % 20) * 0.002
            for (reader, secondsAgo, step) in [(clientA, 2.0, 0.0), (clientB, 0.0, 0.0002)] {
                // Anywhere in A's 20 ms publishing cycle.
                usleep(UInt32.random(in: 0..<20_000))
                let posted = monotonicSeconds()
                try Self.post(token, lat: lat + step, lon: lon, secondsAgo: secondsAgo, to: clientA)
                let ms = try Self.waitForNearby(
                    id, lat: lat + step, lon: lon, on: reader, dispatcher: dispatcher, since: posted)
                if reader.port == a.port { result.nearbyOnA.add(ms) } else { result.nearbyOnB.add(ms) }
            }
        }

        stop.request()
        fleetDone.wait()
        fleetJoined = true
        result.fleet = fleetSummary.value.withLock { $0 }
        result.redisCPUSeconds = (try Self.info(info, "cpu").usedCPUSeconds ?? 0) - cpuBefore
        result.runSeconds = monotonicSeconds() - started
        if backgroundDrivers == 0 { result.redisMemoryAfter = try Self.info(info, "memory").usedMemoryBytes ?? 0 }
        return result
    }

    /// The road graph's junctions, where the background drivers move.
    private func junctions() throws(BenchError) -> [Coordinate] {
        let directory = DataDirectory(path: dataDirectory)
        guard let manifest = try? directory.manifest(),
            let graph = try? RoadGraph.load(from: directory.roadGraphPath, expectedFingerprint: manifest.fingerprint)
        else { throw BenchError("cannot read the road graph of \(dataDirectory): import a map first") }
        let junctions = graph.routableNodeCoordinates
        guard junctions.count >= 2 else { throw BenchError("the imported map has no road network") }
        return junctions
    }

    private static func info(_ redis: RedisConnection, _ section: String) throws(BenchError) -> RedisInfo {
        let reply: RedisReply
        do {
            reply = try redis.command("INFO", section)
        } catch {
            throw BenchError("INFO \(section): \(error)")
        }
        guard let text = reply.string else { throw BenchError("INFO \(section) answered \(reply)") }
        return RedisInfo(text)
    }

    /// The shards each node holds (`/healthz` "dispatch"), by node.
    private static func shards(_ nodes: [LoopbackServer]) -> [Set<Int>] {
        nodes.map { node in
            let health = try? LoopbackHTTPClient(port: node.port).send("GET", "/healthz")
            let dispatch = health?.jsonObject?["dispatch"] as? [String: Any]
            return Set(dispatch?["shards"] as? [Int] ?? [])
        }
    }

    /// Waits (up to 30 s) until the nodes hold the 64 dispatch shards between them, each some.
    private static func waitForShards(_ nodes: [LoopbackServer]) throws(BenchError) {
        let deadline = monotonicSeconds() + 30
        while monotonicSeconds() < deadline {
            let held = shards(nodes)
            if held.allSatisfy({ !$0.isEmpty }), held.map(\.count).reduce(0, +) == DispatchShard.count { return }
            usleep(100_000)
        }
        throw BenchError("the three nodes did not share the 64 dispatch shards within 30 s")
    }

    private static func owner(of trip: String, nodes: [LoopbackServer]) -> String? {
        let shard = DispatchShard(of: BookingID(uncheckedRawValue: trip)).index
        return zip(nodeNames, shards(nodes)).first { $0.1.contains(shard) }?.0
    }

    struct Trip {
        var trip: String
        var riderToken: String
        var driverToken: String
    }

    private static func signUpDriver(on node: LoopbackServer, name: String) throws(BenchError) -> (
        id: String, token: String
    ) {
        let answer = try LoopbackHTTPClient(port: node.port).send(
            "POST", "/v1/drivers", json: ["name": name, "vehicle": "car", "plate": "BENCH-1"])
        guard let id = answer.jsonObject?["id"] as? String, let token = answer.jsonObject?["token"] as? String else {
            throw BenchError("POST /v1/drivers answered \(answer.status): \(answer.text)")
        }
        return (id, token)
    }

    /// A driver goes online at the pickup on `node`, a rider books there, and the driver accepts the offer.
    private static func acceptedTrip(on node: LoopbackServer, pickup: Coordinate, dropoff: Coordinate)
        throws(BenchError) -> Trip
    {
        let client = LoopbackHTTPClient(port: node.port)
        let driver = try signUpDriver(on: node, name: "Bench driver")
        let auth = [("Authorization", "Bearer \(driver.token)")]
        let offers = try StreamFollower(port: node.port, path: "/v1/driver/stream", headers: auth)
        defer { offers.stop() }
        let online = try client.send("POST", "/v1/driver/status", headers: auth, json: ["status": "online"])
        guard online.status == 200 else { throw BenchError("going online answered \(online.status): \(online.text)") }
        try post(driver.token, lat: pickup.latitude, lon: pickup.longitude, to: client)
        let rider = try client.send("POST", "/v1/riders", json: ["name": "Bench rider"])
        guard let riderToken = rider.jsonObject?["token"] as? String else {
            throw BenchError("POST /v1/riders answered \(rider.status): \(rider.text)")
        }
        let booked = try client.send(
            "POST", "/v1/bookings",
            headers: [("Authorization", "Bearer \(riderToken)"), ("Idempotency-Key", UUID().uuidString)],
            json: [
                "pickup": ["lat": pickup.latitude, "lon": pickup.longitude],
                "dropoff": ["lat": dropoff.latitude, "lon": dropoff.longitude],
            ])
        guard let trip = booked.jsonObject?["id"] as? String else {
            throw BenchError("POST /v1/bookings answered \(booked.status): \(booked.text)")
        }
        guard offers.next(timeoutSeconds: 30, matching: { $0.type == "offer" && $0.data.contains(trip) }) != nil
        else { throw BenchError("the driver was not offered trip \(trip) within 30 s") }
        let accepted = try client.send("POST", "/v1/trips/\(trip)/accept", headers: auth)
        guard accepted.status == 200 else {
            throw BenchError("accepting the trip answered \(accepted.status): \(accepted.text)")
        }
        return Trip(trip: trip, riderToken: riderToken, driverToken: driver.token)
    }

    /// The rider's stream of `trip` on `node`, once it said the trip is accepted.
    private static func riderStream(_ trip: Trip, on node: LoopbackServer) throws(BenchError) -> StreamFollower {
        let stream = try StreamFollower(
            port: node.port, path: "/v1/bookings/\(trip.trip)/stream",
            headers: [("Authorization", "Bearer \(trip.riderToken)")])
        guard stream.next(timeoutSeconds: 10, matching: { $0.type == "status" && $0.data.contains("accepted") }) != nil
        else {
            stream.stop()
            throw BenchError("the rider's stream on port \(node.port) did not show the accepted trip")
        }
        return stream
    }

    /// Whether `event` is a `position` at `latitude`.
    static func isPosition(_ event: ServerSentEvent, latitude: Double) -> Bool {
        guard event.type == "position",
            let object = try? JSONSerialization.jsonObject(with: Data(event.data.utf8)) as? [String: Any],
            let lat = object["lat"] as? Double
        else { return false }
        return abs(lat - latitude) < 1e-7
    }

    /// Posts one fix taken `secondsAgo` before now on a connection of its own; throws unless it was accepted.
    private static func post(
        _ token: String, lat: Double, lon: Double, secondsAgo: Double = 0, to client: LoopbackHTTPClient
    ) throws(BenchError) {
        let posted = try client.send(
            "POST", "/v1/driver/locations", headers: [("Authorization", "Bearer \(token)")],
            json: oneFix(lat: lat, lon: lon, secondsAgo: secondsAgo))
        try requireAccepted(posted.status, posted.body, port: client.port)
    }

    /// Posts one fix taken now over `connection`; throws unless it was accepted.
    private static func post(
        _ token: String, lat: Double, lon: Double, over connection: inout KeepAliveConnection
    ) throws(BenchError) {
        guard let body = try? JSONSerialization.data(withJSONObject: oneFix(lat: lat, lon: lon, secondsAgo: 0)) else {
            throw BenchError("cannot encode a fix")
        }
        let answer = connection.send(
            "POST", "/v1/driver/locations",
            headers: [("Authorization", "Bearer \(token)"), ("Content-Type", "application/json")], body: Array(body))
        try requireAccepted(answer.status, answer.body, port: connection.port)
    }

    /// The body of an upload of one fix taken `secondsAgo` before now.
    private static func oneFix(lat: Double, lon: Double, secondsAgo: Double) -> [String: Any] {
        let time = Instant(millisecondsSinceEpoch: Instant.now().millisecondsSinceEpoch - Int64(secondsAgo * 1_000))
        return ["fixes": [["lat": lat, "lon": lon, "time": RFC3339.format(time), "accuracy": 5]]]
    }

    /// Throws unless an upload's answer (status 0: none came) says its fix was accepted.
    private static func requireAccepted(_ status: Int, _ body: [UInt8], port: Int) throws(BenchError) {
        guard status == 200, LeanFleet.acceptedOne(body) else {
            throw BenchError(
                "POST /v1/driver/locations on port \(port) answered \(status) (0: no answer): "
                    + String(decoding: body, as: UTF8.self))
        }
    }

    /// Milliseconds from `since` until `reader`'s nearby lists `driver` at `lat`.
    private static func waitForNearby(
        _ driver: String, lat: Double, lon: Double, on reader: LoopbackHTTPClient, dispatcher: String, since: Double
    ) throws(BenchError) -> Double {
        let path = "/v1/drivers/nearby?lat=\(lat)&lon=\(lon)&k=3"
        while monotonicSeconds() - since < 10 {
            let answer = try reader.send("GET", path, headers: [("Authorization", "Bearer \(dispatcher)")])
            if let drivers = answer.jsonObject?["drivers"] as? [[String: Any]],
                let entry = drivers.first(where: { $0["id"] as? String == driver }),
                let position = entry["position"] as? [String: Any],
                let seen = position["lat"] as? Double, abs(seen - lat) < 1e-7
            {
                return (monotonicSeconds() - since) * 1_000
            }
        }
        throw BenchError("a fix at \(lat),\(lon) was not seen by nearby within 10 s")
    }
}

/// The background fleet's summary, handed from its thread.
private final class SummaryBox: Sendable {
    let value = Mutex<LeanFleet.Summary?>(nil)
}
