import CabAPI
import CabClient
import CabDispatch
import CabGeo
import CabLoopback
import Foundation
import Synchronization

/// The work of `cab simulate`: accounts through the API, then one task per driver driving routes and reporting.
package struct Simulation: Sendable {
    /// What the run did.
    package struct Summary: Sendable {
        package var drivers: Int
        package var seconds: Double
        package var uploads: Int
        package var failedUploads: Int
        package var routes: Int
    }

    package let routing: RoutingService
    package let baseURL: URL
    package let drivers: Int
    package let rateSeconds: Double
    package let durationSeconds: Double?
    package let seed: UInt64

    package func run() async throws(ClientError) -> Summary {
        let nodes = routing.graph.routableNodeCoordinates
        guard nodes.count >= 2 else {
            throw ClientError(.init("no_roads"), "The imported map has no road network to drive.")
        }
        let client = CabAPIClient(baseURL: baseURL)
        var tokens: [String] = []
        for i in 0..<drivers {
            let account = try await client.createDriver(
                name: "Simulated driver \(i + 1)", vehicle: "simulated car", plate: "SIM-\(i + 1)",
                vehicleType: i % 5 == 4 ? "large" : nil)
            tokens.append(account.token)
            standardOutputLine("driver \(account.id)")
        }
        let counters = SimulationCounters()
        let started = ContinuousClock.now
        let deadline = durationSeconds.map { started + .milliseconds(Int($0 * 1000)) }
        await withTaskGroup(of: Void.self) { group in
            for (index, token) in tokens.enumerated() {
                group.addTask {
                    await drive(index: index, token: token, nodes: nodes, counters: counters, deadline: deadline)
                }
            }
        }
        let elapsed = ContinuousClock.now - started
        return Summary(
            drivers: drivers, seconds: Double(elapsed.components.seconds),
            uploads: counters.uploads.load(ordering: .relaxed),
            failedUploads: counters.failed.load(ordering: .relaxed), routes: counters.routes.load(ordering: .relaxed))
    }

    private func drive(
        index: Int, token: String, nodes: [Coordinate], counters: SimulationCounters, deadline: ContinuousClock.Instant?
    ) async {
        var random = SplitMix64(seed: seed &+ UInt64(index) &* 0x9E37_79B9)
        let transport = CountingTransport(client: CabAPIClient(baseURL: baseURL, token: token), counters: counters)
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
        var position = nodes[Int(random.next() % UInt64(nodes.count))]
        // Stagger the first reports over one period so the server sees a steady rate.
        try? await Task.sleep(for: .milliseconds(Int(Double(random.next() % 1000) * rateSeconds)))
        while timeLeft() {
            guard var walker = nextRoute(from: position, nodes: nodes, random: &random) else { break }
            counters.routes.add(1, ordering: .relaxed)
            while !walker.isFinished && timeLeft() {
                do {
                    try await Task.sleep(for: .milliseconds(Int(rateSeconds * 1000)))
                } catch {
                    return  // cancelled
                }
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
        routing: RoutingService, baseURL: URL, drivers: Int, rateSeconds: Double, durationSeconds: Double?,
        seed: UInt64
    ) {
        self.routing = routing
        self.baseURL = baseURL
        self.drivers = drivers
        self.rateSeconds = rateSeconds
        self.durationSeconds = durationSeconds
        self.seed = seed
    }
}

/// Counts for the summary line.
package final class SimulationCounters: Sendable {
    package let uploads = Atomic<Int>(0)
    package let failed = Atomic<Int>(0)
    package let routes = Atomic<Int>(0)
}

/// `CabAPIClient` as the reporter's transport, counting uploads.
package struct CountingTransport: LocationTransport {
    package let client: CabAPIClient
    package let counters: SimulationCounters

    package func upload(_ fixes: [ReportedFix]) async -> UploadResult {
        let result = await client.upload(fixes)
        if case .accepted = result {
            counters.uploads.add(1, ordering: .relaxed)
        } else {
            counters.failed.add(1, ordering: .relaxed)
        }
        return result
    }
}
