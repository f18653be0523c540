import CabAPI
import CabClient
import CabCore
import CabDispatch
import CabGeo
import CabLoopback
import Foundation
import Synchronization

/// The work of `cab simulate`: accounts through the API, then one task per driver driving routes and reporting.
/// With several servers (the nodes of one city, issue 17) driver `i` signs up and reports to node `i % n`, as a
/// load balancer that keeps a phone on one node would spread them.
package struct Simulation: Sendable {
    /// What the run did.
    package struct Summary: Sendable {
        package var drivers: Int
        package var seconds: Double
        package var uploads: Int
        package var failedUploads: Int
        package var routes: Int
        /// Fixes in accepted uploads.
        package var acceptedFixes: Int
        /// Accepted fixes per second after the first period (the ramp); nil when the run was no longer than it.
        package var steadyFixesPerSecond: Double?
        /// Accepted uploads per node, in `baseURLs` order.
        package var uploadsPerNode: [Int]
        /// An upload's round trip as the phone sees it (`POST /v1/driver/locations`), in milliseconds.
        package var uploadP50Milliseconds: Double?
        package var uploadP99Milliseconds: Double?
        /// Seconds the accounts took to make.
        package var signUpSeconds: Double
        /// With a dispatcher's token: per node, how long a fix took from the phone (its time) to that node's fleet
        /// stream (`GET /v1/fleet/stream`), p50 and p99 in milliseconds, and how many events were timed.
        package var streamDelays: [(p50: Double?, p99: Double?, events: Int, missed: Int, reconnects: Int)] = []
    }

    package let routing: RoutingService
    /// The servers, at least one.
    package let baseURLs: [URL]
    package let drivers: Int
    package let rateSeconds: Double
    package let durationSeconds: Double?
    package let seed: UInt64
    /// A dispatcher's token: each node's fleet stream is followed and every position's delay timed.
    package var streamToken: String?
    /// Upload over this many keep-alive connections per node (`KeepAlivePool`) instead of `URLSession`.
    package var connectionsPerNode: Int?

    package func run() async throws(ClientError) -> Summary {
        let nodes = routing.graph.routableNodeCoordinates
        guard nodes.count >= 2 else {
            throw ClientError(.init("no_roads"), "The imported map has no road network to drive.")
        }
        let signUpStarted = ContinuousClock.now
        let tokens = try await signUp(printing: drivers <= Self.printedDriversLimit)
        let signUpSeconds = (ContinuousClock.now - signUpStarted).inSeconds
        let counters = SimulationCounters(nodes: baseURLs.count)
        let pool = connectionsPerNode.map {
            KeepAlivePool(ports: baseURLs.map { $0.port ?? 80 }, connectionsPerNode: $0)
        }
        let streams =
            streamToken.map { token in
                baseURLs.map { FleetStreamDelay(CabAPIClient(baseURL: $0, token: token)) }
            } ?? []
        defer { for s in streams { s.stop() } }
        let started = ContinuousClock.now
        let deadline = durationSeconds.map { started + .milliseconds(Int($0 * 1000)) }
        let ramp = RampMark()
        await withTaskGroup(of: Void.self) { group in
            // The first period is the ramp (first reports are staggered over it): the steady rate counts from its end.
            if durationSeconds.map({ $0 > rateSeconds }) ?? true {
                group.addTask {
                    try? await Task.sleep(for: .milliseconds(Int(rateSeconds * 1000)))
                    ramp.mark.withLock { $0 = (counters.acceptedFixes.load(ordering: .relaxed), ContinuousClock.now) }
                }
            }
            for (index, token) in tokens.enumerated() {
                group.addTask {
                    await drive(
                        index: index, token: token, nodes: nodes, counters: counters, pool: pool, deadline: deadline)
                }
            }
        }
        let ended = ContinuousClock.now
        let elapsed = ended - started
        let latencies = counters.latencies.withLock { $0 }
        let accepted = counters.acceptedFixes.load(ordering: .relaxed)
        let steady = ramp.mark.withLock { $0 }.map { start in
            Double(accepted - start.fixes) / max((ended - start.at).inSeconds, 0.001)
        }
        return Summary(
            drivers: drivers, seconds: elapsed.inSeconds,
            uploads: counters.uploads.load(ordering: .relaxed),
            failedUploads: counters.failed.load(ordering: .relaxed), routes: counters.routes.load(ordering: .relaxed),
            acceptedFixes: accepted, steadyFixesPerSecond: steady,
            uploadsPerNode: counters.perNode.withLock { $0 },
            uploadP50Milliseconds: latencies.percentile(50), uploadP99Milliseconds: latencies.percentile(99),
            signUpSeconds: signUpSeconds,
            streamDelays: streams.map { s in
                let samples = s.delays.withLock { $0 }
                return (
                    samples.percentile(50), samples.percentile(99), samples.count, s.missed.load(ordering: .relaxed),
                    s.reconnects.load(ordering: .relaxed)
                )
            })
    }

    /// Up to this many drivers, each account is printed as it is made (`driver dr_...`); past it only the count.
    package static let printedDriversLimit = 1_000

    /// The drivers' accounts, 32 sign-ups in flight at a time, driver `i` on node `i % n`; their tokens in order.
    private func signUp(printing: Bool) async throws(ClientError) -> [String] {
        let clients = baseURLs.map { CabAPIClient(baseURL: $0) }
        var tokens = [String](repeating: "", count: drivers)
        let made: Result<[(Int, String, String)], ClientError> = await withTaskGroup(
            of: Result<(Int, String, String), ClientError>.self
        ) { group in
            var next = 0
            var made: [(Int, String, String)] = []
            func start(_ i: Int) {
                let client = clients[i % clients.count]
                group.addTask {
                    do throws(ClientError) {
                        let account = try await client.createDriver(
                            name: "Simulated driver \(i + 1)", vehicle: "simulated car", plate: "SIM-\(i + 1)",
                            vehicleType: i % 5 == 4 ? "large" : nil)
                        return .success((i, account.id, account.token))
                    } catch {
                        return .failure(error)
                    }
                }
            }
            while next < min(32, drivers) {
                start(next)
                next += 1
            }
            while let answer = await group.next() {
                switch answer {
                case .failure(let error):
                    group.cancelAll()
                    return .failure(error)
                case .success(let account):
                    made.append(account)
                    if printing { standardOutputLine("driver \(account.1)") }
                    if next < drivers {
                        start(next)
                        next += 1
                    }
                }
            }
            return .success(made)
        }
        for (i, _, token) in try made.get() { tokens[i] = token }
        return tokens
    }

    private func drive(
        index: Int, token: String, nodes: [Coordinate], counters: SimulationCounters, pool: KeepAlivePool?,
        deadline: ContinuousClock.Instant?
    ) async {
        var random = SplitMix64(seed: seed &+ UInt64(index) &* 0x9E37_79B9)
        let node = index % baseURLs.count
        let client: any LocationTransport =
            pool.map { PooledTransport(pool: $0, node: node, token: token) }
            ?? CabAPIClient(baseURL: baseURLs[node], token: token)
        let transport = CountingTransport(client: client, counters: counters, node: node)
        let reporter: LocationReporter
        do {
            reporter = try LocationReporter(
                configuration: LocationReporterConfiguration(
                    minDistanceMeters: 5, minIntervalSeconds: rateSeconds, maxSilenceSeconds: max(30, rateSeconds * 5)),
                transport: transport)
        } catch {
            counters.failed.add(1, ordering: .relaxed)
            return
        }
        func timeLeft() -> Bool { deadline.map { ContinuousClock.now < $0 } ?? true }
        /// Sleeps `seconds`, or until the deadline when that comes first; false when the run is over.
        func pause(_ seconds: Double) async -> Bool {
            var wait = Duration.milliseconds(Int(seconds * 1000))
            if let deadline { wait = min(wait, deadline - ContinuousClock.now) }
            if wait > .zero {
                do { try await Task.sleep(for: wait) } catch { return false }  // cancelled
            }
            return timeLeft()
        }
        var position = nodes[Int(random.next() % UInt64(nodes.count))]
        // Stagger the first reports over one period so the server sees a steady rate.
        guard await pause(Double(random.next() % 1000) / 1000 * rateSeconds) else { return }
        while timeLeft() {
            guard var walker = nextRoute(from: position, nodes: nodes, random: &random) else { break }
            counters.routes.add(1, ordering: .relaxed)
            while !walker.isFinished && timeLeft() {
                guard await pause(rateSeconds) else { return }
                walker.advance(seconds: rateSeconds)
                position = walker.position
                do {
                    try await reporter.record(
                        LocationSample(
                            coordinate: position, time: Date(), accuracyMeters: 5,
                            speedMetersPerSecond: walker.speedMetersPerSecond, headingDegrees: walker.headingDegrees))
                    try await reporter.poll()
                } catch {
                    counters.failed.add(1, ordering: .relaxed)
                }
            }
        }
    }

    /// A route of 0.5 to 6 km from `start` to a random road node; nil after 20 failed tries.
    private func nextRoute(from start: Coordinate, nodes: [Coordinate], random: inout SplitMix64) -> RouteWalker? {
        for _ in 0..<20 {
            let destination = nodes[Int(random.next() % UInt64(nodes.count))]
            let straight = start.distanceMeters(to: destination)
            guard straight > 500 || nodes.count < 100, straight < 6_000 || random.next() % 4 == 0 else { continue }
            guard let plan = try? routing.route(from: start, to: destination), plan.route.geometry.count >= 2 else {
                continue  // not routable from here: try another destination
            }
            return RouteWalker(
                geometry: plan.route.geometry, distanceMeters: plan.route.distanceMeters,
                durationSeconds: plan.route.durationSeconds)
        }
        return nil
    }

    /// Creates one from every stored property (what the memberwise initializer was in `cab`).
    package init(
        routing: RoutingService, baseURLs: [URL], drivers: Int, rateSeconds: Double, durationSeconds: Double?,
        seed: UInt64
    ) {
        precondition(!baseURLs.isEmpty, "a simulation needs a server")
        self.routing = routing
        self.baseURLs = baseURLs
        self.drivers = drivers
        self.rateSeconds = rateSeconds
        self.durationSeconds = durationSeconds
        self.seed = seed
    }
}

/// One node's fleet stream followed as a dispatcher's map would (`GET /v1/fleet/stream`): every position's delay
/// from the fix's own time (the simulated phone's clock, this machine's) to its arrival here. Started before the
/// drivers sign up, so no snapshot of older positions is timed.
final class FleetStreamDelay: Sendable {
    let delays = Mutex(LatencySamples(capacity: 200_000))
    /// Positions the server said this stream missed (`event: gap`, a reader too slow for the replay window) and
    /// reconnections.
    let missed = Atomic<Int>(0)
    let reconnects = Atomic<Int>(0)
    private let task = Mutex<Task<Void, Never>?>(nil)

    init(_ client: CabAPIClient) {
        let request = client.request("/v1/fleet/stream")
        task.withLock {
            $0 = Task { [weak self] in
                for await delivery in EventSource.deliveries(of: request, configuration: .init()) {
                    if case .interrupted = delivery { self?.reconnects.add(1, ordering: .relaxed) }
                    if case .event(let event) = delivery, event.type == "gap" {
                        struct Gap: Decodable { var missed: Int }
                        let gap = try? JSONDecoder().decode(Gap.self, from: Data(event.data.utf8))
                        self?.missed.add(gap?.missed ?? 0, ordering: .relaxed)
                    }
                    guard case .event(let event) = delivery, event.type == "position" else { continue }
                    // `updated_at` is the fix's own time (`time` is the server's tick that sent it).
                    struct Position: Decodable {
                        var updatedAt: String
                        enum CodingKeys: String, CodingKey { case updatedAt = "updated_at" }
                    }
                    guard let position = try? JSONDecoder().decode(Position.self, from: Data(event.data.utf8)),
                        let time = RFC3339.parse(position.updatedAt)
                    else { continue }
                    let milliseconds = Double(Instant.now().milliseconds(since: time))
                    self?.delays.withLock { $0.add(milliseconds) }
                }
            }
        }
    }

    func stop() { task.withLock { $0?.cancel() } }
}

/// The accepted fixes when the ramp (the first period) ended, and when.
final class RampMark: Sendable {
    let mark = Mutex<(fixes: Int, at: ContinuousClock.Instant)?>(nil)
}

/// Counts for the summary line.
package final class SimulationCounters: Sendable {
    package let uploads = Atomic<Int>(0)
    package let failed = Atomic<Int>(0)
    package let routes = Atomic<Int>(0)
    package let acceptedFixes = Atomic<Int>(0)
    /// Accepted uploads per node.
    package let perNode: Mutex<[Int]>
    /// Upload round trips in milliseconds (a bounded reservoir).
    package let latencies = Mutex(LatencySamples(capacity: 200_000))

    package init(nodes: Int = 1) { perNode = Mutex([Int](repeating: 0, count: max(1, nodes))) }
}

/// The reporter's transport (`CabAPIClient`, or a `PooledTransport`), counting and timing uploads.
package struct CountingTransport: LocationTransport {
    package let client: any LocationTransport
    package let counters: SimulationCounters
    /// The node this driver reports to (an index into `SimulationCounters.perNode`).
    package var node = 0

    package func upload(_ fixes: [ReportedFix]) async -> UploadResult {
        let started = ContinuousClock.now
        let result = await client.upload(fixes)
        let milliseconds = (ContinuousClock.now - started).inMilliseconds
        counters.latencies.withLock { $0.add(milliseconds) }
        if case .accepted = result {
            counters.uploads.add(1, ordering: .relaxed)
            counters.acceptedFixes.add(fixes.count, ordering: .relaxed)
            counters.perNode.withLock { $0[node] += 1 }
        } else {
            counters.failed.add(1, ordering: .relaxed)
        }
        return result
    }
}
