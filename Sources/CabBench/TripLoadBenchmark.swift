import CabGeo
import CabLoopback
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// `cab bench api --trips`: how `/healthz` and SSE heartbeats fare while trips are driven through the real API
/// (issue 14, part 4). `pairs` riders and `pairs` drivers, each on its own thread and connections, play whole
/// trips over and over: the rider books (`POST /v1/bookings`, durable), the driver that gets the offer on its
/// `GET /v1/driver/stream` accepts, reports a fix at the pickup, arrives, starts with the rider's PIN and
/// completes (every step a durable write). Meanwhile one probe asks `GET /healthz` every 5 ms, and every heartbeat
/// comment on the drivers' streams is timed against its schedule (one per 15 s from when the stream opened).
///
/// The same load runs against `cab serve --handler-threads 0` (every handler inline on the epoll threads, the
/// behaviour before the handler pool) and against the default pool, one after the other on fresh stores.
package struct TripLoadBenchmark {
    package struct Configuration {
        package var dataDirectory: String
        package var durationSeconds = 20
        /// Rider/driver pairs playing trips at once (each pair: two command connections and one stream).
        package var pairs = 32
        package var pickup: Coordinate
        package var dropoff: Coordinate
        package var serverLog = "/dev/null"
        /// `cab serve --threads`; nil keeps serve's default.
        package var serverThreads: Int?
        /// The EventStream heartbeat interval `cab serve` uses for the driver stream.
        package var heartbeatIntervalSeconds = 15.0

        /// A configuration.
        package init(
            dataDirectory: String, durationSeconds: Int = 20, pairs: Int = 32, pickup: Coordinate, dropoff: Coordinate,
            serverLog: String = "/dev/null", serverThreads: Int? = nil
        ) {
            self.dataDirectory = dataDirectory
            self.durationSeconds = durationSeconds
            self.pairs = pairs
            self.pickup = pickup
            self.dropoff = dropoff
            self.serverLog = serverLog
            self.serverThreads = serverThreads
        }
    }

    /// The figures of one server build.
    package struct Run {
        package var label: String
        package var handlerThreads: String
        package var trips = 0
        package var transitions = 0
        package var failures = 0
        package var seconds = 0.0
        package var healthzCount = 0
        package var healthzFailures = 0
        package var healthzP50 = 0.0
        package var healthzP99 = 0.0
        package var healthzMax = 0.0
        package var heartbeats = 0
        package var heartbeatDelayP50 = 0.0
        package var heartbeatDelayMax = 0.0
        package var firstFailure: String?
    }

    package let configuration: Configuration
    package var progress: (String) -> Void = { FileHandle.standardError.write(Data(($0 + "\n").utf8)) }

    /// A benchmark of `configuration`.
    package init(configuration: Configuration) { self.configuration = configuration }

    /// Runs the inline baseline, then the pool.
    package func run() throws(BenchError) -> [Run] {
        [
            try measure(label: "inline (--handler-threads 0, the baseline)", handlerThreads: "0"),
            try measure(label: "handler pool (serve's default)", handlerThreads: nil),
        ]
    }

    private func measure(label: String, handlerThreads: String?) throws(BenchError) -> Run {
        let scratch = try ScratchDataDirectory(linkingFrom: configuration.dataDirectory)
        defer { scratch.remove() }
        var extra = configuration.serverThreads.map { ["--threads", "\($0)"] } ?? []
        if let handlerThreads { extra += ["--handler-threads", handlerThreads] }
        progress("cab bench api --trips: \(label), server on \(scratch.path)")
        let server = try LoopbackServer(
            dataDirectory: scratch.path, extraArguments: extra, logPath: configuration.serverLog)
        defer { server.stop() }
        let client = LoopbackHTTPClient(port: server.port)
        var riders: [String] = []
        var drivers: [String] = []
        for n in 0..<configuration.pairs {
            riders.append(
                try Self.token(client.send("POST", "/v1/riders", json: ["name": "Trip Rider \(n)"]), "POST /v1/riders"))
            drivers.append(
                try Self.token(
                    client.send(
                        "POST", "/v1/drivers",
                        json: ["name": "Trip Driver \(n)", "vehicle": "Bench car", "plate": "T-\(n)"]),
                    "POST /v1/drivers"))
        }
        let board = TripBoard()
        let load = TripLoad(
            port: server.port, pickup: configuration.pickup, dropoff: configuration.dropoff, board: board)
        for token in drivers {
            try load.report(token)
            let online = try client.send(
                "POST", "/v1/driver/status", headers: [("Authorization", "Bearer \(token)")],
                json: ["status": "online"])
            guard online.status == 200 else {
                throw BenchError("POST /v1/driver/status answered \(online.status): \(APIBenchmark.detail(online))")
            }
        }
        // The streams open first; the load starts at once, so the first heartbeat (15 s later) falls inside it.
        let streams = drivers.map { token in DriverStream(port: server.port, token: token, board: board) }
        for stream in streams { try stream.open() }
        progress("\(configuration.pairs) riders and drivers ready; trips for \(configuration.durationSeconds) s")
        let started = monotonicSeconds()
        let deadline = started + Double(configuration.durationSeconds)
        let health = HealthProbe(port: server.port)
        var loops: [@Sendable () -> Void] = [{ health.run(until: deadline) }]
        for (index, stream) in streams.enumerated() {
            let (driver, rider) = (drivers[index], riders[index])
            loops.append { stream.read(until: deadline + 2) }
            loops.append { load.drive(driver, offers: stream, until: deadline) }
            loops.append {
                load.book(rider, key: "trip-\(index)-\(UInt32.random(in: 0...UInt32.max))", until: deadline)
            }
        }
        let finished = DispatchGroup()
        for loop in loops {
            finished.enter()
            Thread.detachNewThread {
                loop()
                finished.leave()
            }
        }
        _ = finished.wait(timeout: .now() + .seconds(configuration.durationSeconds + 60))
        let seconds = min(monotonicSeconds(), deadline) - started
        var run = Run(label: label, handlerThreads: handlerThreads ?? "default")
        run.seconds = seconds
        run.trips = board.completed.load(ordering: .relaxed)
        run.transitions = board.transitions.load(ordering: .relaxed)
        run.failures = board.failures.load(ordering: .relaxed)
        run.firstFailure = board.firstFailure.withLock { $0 }
        let healthSamples = health.samples.withLock { $0 }
        run.healthzCount = healthSamples.count
        run.healthzFailures = health.failures.load(ordering: .relaxed)
        run.healthzP50 = healthSamples.percentile(50) ?? 0
        run.healthzP99 = healthSamples.percentile(99) ?? 0
        run.healthzMax = healthSamples.percentile(100) ?? 0
        var delays = LatencySamples()
        for stream in streams {
            for delay in stream.heartbeatDelays(interval: configuration.heartbeatIntervalSeconds) { delays.add(delay) }
        }
        run.heartbeats = delays.count
        run.heartbeatDelayP50 = delays.percentile(50) ?? 0
        run.heartbeatDelayMax = delays.percentile(100) ?? 0
        for stream in streams { stream.close() }
        return run
    }

    static func token(_ answer: LoopbackHTTPClient.Response, _ what: String) throws(BenchError) -> String {
        guard answer.status == 201 || answer.status == 200, let token = answer.jsonObject?["token"] as? String else {
            throw BenchError("\(what) answered \(answer.status): \(APIBenchmark.detail(answer))")
        }
        return token
    }
}

/// What the riders and drivers of one run share: PINs by trip, completions, counters.
final class TripBoard: Sendable {
    let pins = Mutex<[String: String]>([:])
    let done = Mutex<Set<String>>([])
    let completed = Atomic<Int>(0)
    let transitions = Atomic<Int>(0)
    let failures = Atomic<Int>(0)
    let firstFailure = Mutex<String?>(nil)

    func fail(_ what: String) {
        failures.add(1, ordering: .relaxed)
        firstFailure.withLock { if $0 == nil { $0 = what } }
    }

    /// The PIN of `trip`, waiting (polling) up to 5 s for its rider's booking answer to arrive.
    func pin(_ trip: String) -> String? {
        let deadline = monotonicSeconds() + 5
        while monotonicSeconds() < deadline {
            if let pin = pins.withLock({ $0[trip] }) { return pin }
            usleep(1_000)
        }
        return nil
    }
}

/// The riders' and drivers' loops over one-request connections.
struct TripLoad: Sendable {
    let port: Int
    let pickup: Coordinate
    let dropoff: Coordinate
    let board: TripBoard

    private var client: LoopbackHTTPClient { LoopbackHTTPClient(port: port) }

    /// One fix at the pickup, now (a 429 is fine: the driver reported less than a second ago, so its position is
    /// fresh).
    func report(_ token: String) throws(BenchError) {
        let time = ISO8601DateFormatter.string(
            from: Date(), timeZone: TimeZone(identifier: "UTC")!,  // UTC exists
            formatOptions: [.withInternetDateTime, .withFractionalSeconds])
        let fix: [String: Any] = ["lat": pickup.latitude, "lon": pickup.longitude, "time": time, "accuracy": 5]
        let answer = try client.send(
            "POST", "/v1/driver/locations", headers: [("Authorization", "Bearer \(token)")], json: ["fixes": [fix]])
        guard answer.status == 200 || answer.status == 202 || answer.status == 429 else {
            throw BenchError("POST /v1/driver/locations answered \(answer.status): \(APIBenchmark.detail(answer))")
        }
    }

    /// A rider: books, waits for the trip to be completed (up to 20 s), books again.
    func book(_ token: String, key: String, until deadline: Double) {
        var n = 0
        let body: [String: Any] = [
            "pickup": ["lat": pickup.latitude, "lon": pickup.longitude],
            "dropoff": ["lat": dropoff.latitude, "lon": dropoff.longitude],
        ]
        while monotonicSeconds() < deadline {
            n += 1
            do throws(BenchError) {
                let answer = try client.send(
                    "POST", "/v1/bookings",
                    headers: [("Authorization", "Bearer \(token)"), ("Idempotency-Key", "\(key)-\(n)")], json: body)
                guard answer.status == 201, let id = answer.jsonObject?["id"] as? String,
                    let pin = answer.jsonObject?["pin"] as? String
                else {
                    board.fail("POST /v1/bookings answered \(answer.status): \(APIBenchmark.detail(answer))")
                    usleep(100_000)
                    continue
                }
                board.transitions.add(1, ordering: .relaxed)
                board.pins.withLock { $0[id] = pin }
                let wait = min(deadline, monotonicSeconds() + 20)
                while monotonicSeconds() < wait && !board.done.withLock({ $0.contains(id) }) { usleep(2_000) }
                // Given up after 20 s (not at the end of the run, where drivers are still mid-trip): cancel.
                if !board.done.withLock({ $0.contains(id) }) && monotonicSeconds() < deadline {
                    _ = try? client.send(
                        "POST", "/v1/bookings/\(id)/cancel", headers: [("Authorization", "Bearer \(token)")],
                        json: ["reason": "bench over"])
                }
            } catch {
                board.fail(error.message)
            }
        }
    }

    /// A driver: takes offers from its stream and plays each trip to the end.
    func drive(_ token: String, offers: DriverStream, until deadline: Double) {
        let auth = [("Authorization", "Bearer \(token)")]
        while monotonicSeconds() < deadline {
            guard let trip = offers.nextOffer(until: deadline) else { continue }
            do throws(BenchError) {
                let accepted = try client.send("POST", "/v1/trips/\(trip)/accept", headers: auth, json: [String: Any]())
                guard accepted.status == 200 else { continue }  // lost the race, or the offer expired
                board.transitions.add(1, ordering: .relaxed)
                try report(token)
                guard let pin = board.pin(trip) else {
                    board.fail("no PIN for trip \(trip)")
                    continue
                }
                for (step, body) in [("arrived", [String: Any]()), ("start", ["code": pin]), ("complete", [:])] {
                    let answer = try client.send("POST", "/v1/trips/\(trip)/\(step)", headers: auth, json: body)
                    guard answer.status == 200 else {
                        throw BenchError(
                            "POST /v1/trips/{id}/\(step) answered \(answer.status): \(APIBenchmark.detail(answer))")
                    }
                    board.transitions.add(1, ordering: .relaxed)
                }
                board.done.withLock { _ = $0.insert(trip) }
                board.completed.add(1, ordering: .relaxed)
            } catch {
                board.fail(error.message)
            }
        }
    }
}

/// One driver's `GET /v1/driver/stream`: offers for the driving loop, and the arrival time of every heartbeat.
final class DriverStream: @unchecked Sendable {
    // @unchecked Sendable: `fd` and `opened` are set by `open()` before the reader thread starts; `state` guards
    // the rest.
    let port: Int
    let token: String
    let board: TripBoard
    private var fd: Int32 = -1
    private var opened = 0.0
    private let state = Mutex<(offers: [String], heartbeats: [Double])>(([], []))
    private let available = DispatchSemaphore(value: 0)

    init(port: Int, token: String, board: TripBoard) {
        self.port = port
        self.token = token
        self.board = board
    }

    /// Connects and reads the response head.
    func open() throws(BenchError) {
        fd = try LoopbackSocket.connect(port: port, nonBlocking: false)
        var timeout = timeval(tv_sec: 1, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        try LoopbackSocket.writeAll(
            fd,
            LoopbackSocket.request(
                method: "GET", path: "/v1/driver/stream", headers: [("Authorization", "Bearer \(token)")],
                keepAlive: true))
        opened = monotonicSeconds()
    }

    /// Reads the stream until `deadline`: `offer` events become offers, `: heartbeat` lines are timed.
    func read(until deadline: Double) {
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        var pending: [UInt8] = []
        while monotonicSeconds() < deadline {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n < 0 && (errno == EAGAIN || errno == EINTR) { continue }
            guard n > 0 else { return }
            let now = monotonicSeconds()
            pending += buffer[0..<n]
            while let newline = pending.firstIndex(of: 10) {
                let line = String(decoding: pending[..<newline], as: UTF8.self)
                pending.removeSubrange(...newline)
                if line.hasPrefix(": heartbeat") {
                    state.withLock { $0.heartbeats.append(now) }
                } else if line.hasPrefix("data: "), line.contains("\"expires_at\""),
                    let data = line.dropFirst(6).data(using: .utf8),
                    let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any],
                    let trip = object["trip_id"] as? String
                {
                    state.withLock { $0.offers.append(trip) }
                    available.signal()
                }
            }
        }
    }

    /// The next offer, waiting until `deadline`; nil when none came.
    func nextOffer(until deadline: Double) -> String? {
        let seconds = max(0, deadline - monotonicSeconds())
        guard available.wait(timeout: .now() + seconds) == .success else { return nil }
        return state.withLock { $0.offers.isEmpty ? nil : $0.offers.removeFirst() }
    }

    /// Each heartbeat's lateness in milliseconds: its arrival against `opened + k × interval`.
    func heartbeatDelays(interval: Double) -> [Double] {
        state.withLock { s in
            s.heartbeats.enumerated().map { k, arrival in max(0, (arrival - opened - Double(k + 1) * interval) * 1000) }
        }
    }

    func close() {
        if fd >= 0 { Glibc.close(fd) }
        fd = -1
    }
}

/// Asks `GET /healthz` every 5 ms on a fresh connection and keeps the latencies.
final class HealthProbe: Sendable {
    let port: Int
    let samples = Mutex(LatencySamples())
    let failures = Atomic<Int>(0)

    init(port: Int) { self.port = port }

    func run(until deadline: Double) {
        let client = LoopbackHTTPClient(port: port)
        while monotonicSeconds() < deadline {
            let started = monotonicSeconds()
            let answer = try? client.send("GET", "/healthz")
            let milliseconds = (monotonicSeconds() - started) * 1000
            if answer?.status == 200 {
                samples.withLock { $0.add(milliseconds) }
            } else {
                failures.add(1, ordering: .relaxed)
            }
            usleep(5_000)
        }
    }
}
