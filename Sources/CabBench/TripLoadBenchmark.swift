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
/// The riders' and drivers' command loops run `loadNiceness` below the probe and the server (they stand in for
/// phones, which do not share the server's two cores); the transitions/s they reach is printed beside the figures.
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
        /// The `cab` binary that serves (`--serve-with`: another build, measured under this build's load); nil:
        /// this executable.
        package var serverExecutable: String?
        /// How far below the server, the `/healthz` probe and the stream readers (which time heartbeats) the riders'
        /// and drivers' command loops run (a `nice` increment; 0 runs them at the server's priority).
        package var loadNiceness = 10

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
            executable: configuration.serverExecutable ?? LoopbackServer.currentExecutable(),
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
        let niceness = configuration.loadNiceness
        for (index, stream) in streams.enumerated() {
            let (driver, rider) = (drivers[index], riders[index])
            loops.append { stream.read(until: deadline + 2) }  // it times heartbeats: the probe's priority
            loops.append {
                Self.lowerPriority(by: niceness)
                load.drive(driver, offers: stream, until: deadline)
            }
            loops.append {
                Self.lowerPriority(by: niceness)
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

    /// Lowers the calling thread's priority by `niceness` (Linux keeps a nice value per thread; raising it needs
    /// no privilege). The load generator shares the server's two cores here, where in a city its riders and drivers
    /// are phones: at a lower priority it takes only the CPU the server leaves, and the transitions/s it reaches is
    /// printed beside the latencies, so a load that shrank shows.
    static func lowerPriority(by niceness: Int) {
        #if canImport(Glibc)
            if niceness > 0 { _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, Int32(niceness)) }
        #endif
    }

    static func token(_ answer: LoopbackHTTPClient.Response, _ what: String) throws(BenchError) -> String {
        guard answer.status == 201 || answer.status == 200, let token = answer.jsonObject?["token"] as? String else {
            throw BenchError("\(what) answered \(answer.status): \(APIBenchmark.detail(answer))")
        }
        return token
    }
}

/// What the riders and drivers of one run share: each trip's PIN and completion, and the counters. A rider waits for
/// its trip's end and a driver for its trip's PIN on a semaphore of that trip, not by polling: 32 riders polling
/// every 2 ms woke 16,000 times a second, CPU the two cores' server needed (the load generator shares them).
final class TripBoard: Sendable {
    /// One trip's meeting point: the rider publishes the PIN, the driver that accepted publishes the end.
    final class Trip: Sendable {
        let pin = Mutex<String?>(nil)
        let pinPublished = DispatchSemaphore(value: 0)
        let finished = DispatchSemaphore(value: 0)
    }

    private let trips = Mutex<[String: Trip]>([:])
    let completed = Atomic<Int>(0)
    let transitions = Atomic<Int>(0)
    let failures = Atomic<Int>(0)
    let firstFailure = Mutex<String?>(nil)

    func fail(_ what: String) {
        failures.add(1, ordering: .relaxed)
        firstFailure.withLock { if $0 == nil { $0 = what } }
    }

    /// The meeting point of `id`, made by whichever side asks first.
    func trip(_ id: String) -> Trip {
        trips.withLock { trips in
            if let trip = trips[id] { return trip }
            let trip = Trip()
            trips[id] = trip
            return trip
        }
    }

    /// The rider's answer arrived: the PIN of `id` is known.
    func publish(pin: String, for id: String) {
        let trip = trip(id)
        trip.pin.withLock { $0 = pin }
        trip.pinPublished.signal()
    }

    /// The PIN of `id`, waiting up to 5 s for its rider's booking answer to arrive.
    func pin(_ id: String) -> String? {
        let trip = trip(id)
        guard trip.pinPublished.wait(timeout: .now() + .seconds(5)) == .success else { return nil }
        return trip.pin.withLock { $0 }
    }

    /// The driver completed `id`.
    func finish(_ id: String) {
        completed.add(1, ordering: .relaxed)
        trip(id).finished.signal()
    }

    /// Waits until `id` is completed or `deadline` (monotonic seconds) passes; true when it was completed. The
    /// meeting point stays (a few thousand per run): a driver that accepted just before the end still reads the PIN.
    func waitUntilFinished(_ id: String, until deadline: Double) -> Bool {
        trip(id).finished.wait(timeout: .now() + max(0, deadline - monotonicSeconds())) == .success
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
                board.publish(pin: pin, for: id)
                let finished = board.waitUntilFinished(id, until: min(deadline, monotonicSeconds() + 20))
                // Given up after 20 s (not at the end of the run, where drivers are still mid-trip): cancel.
                if !finished && monotonicSeconds() < deadline {
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
                board.finish(trip)
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
