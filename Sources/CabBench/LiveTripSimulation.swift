import CabAPI
import CabClient
import CabDispatch
import CabGeo
import CabLoopback
import Foundation
import Synchronization

/// The live mode of `cab simulate --trips --url …`: simulated riders and drivers play whole trips against a
/// running `cab serve` over HTTP, in real time, so the web app shows them. Drivers are API accounts that go
/// online, listen to `GET /v1/driver/stream`, accept (some decline), drive the road route to the pickup reporting
/// positions through `LocationReporter`, arrive, start with the rider's PIN, drive to the drop-off and complete.
/// Riders book at a steady rate between random routable points; some cancel while they wait.
package struct LiveTripSimulation: Sendable {
    /// What to run.
    package struct Configuration: Sendable {
        package var baseURL: URL
        package var drivers: Int
        package var ridersPerMinute: Double
        /// Riders book for this long; then open trips get `drainSeconds` to end.
        package var durationSeconds: Double
        package var drainSeconds: Double
        package var declineProbability: Double
        package var cancelProbability: Double
        /// Drivers drive this many times faster than the road's speed (capped below the server's speed check).
        package var speedFactor: Double
        package var seed: UInt64

        /// Creates one from every stored property (what the memberwise initializer was in `cab`).
        package init(
            baseURL: URL, drivers: Int, ridersPerMinute: Double, durationSeconds: Double, drainSeconds: Double,
            declineProbability: Double, cancelProbability: Double, speedFactor: Double, seed: UInt64
        ) {
            self.baseURL = baseURL
            self.drivers = drivers
            self.ridersPerMinute = ridersPerMinute
            self.durationSeconds = durationSeconds
            self.drainSeconds = drainSeconds
            self.declineProbability = declineProbability
            self.cancelProbability = cancelProbability
            self.speedFactor = speedFactor
            self.seed = seed
        }
    }

    /// What happened to the bookings.
    package struct Summary: Sendable {
        package var bookings = 0
        package var completed = 0
        package var cancelledByRider = 0
        package var cancelledByDriver = 0
        package var noDriver = 0
        package var expired = 0
        package var open = 0
        package var declines = 0
        package var failures = 0
        package var uploads = 0
    }

    package let routing: RoutingService
    package let configuration: Configuration
    /// One line of progress (driver created, trip completed).
    package let progress: @Sendable (String) -> Void

    package func run() async throws(ClientError) -> Summary {
        let nodes = routing.graph.routableNodeCoordinates
        guard nodes.count >= 2 else {
            throw ClientError(.init("no_roads"), "The imported map has no road network to drive.")
        }
        let client = CabAPIClient(baseURL: configuration.baseURL)
        var tokens: [String] = []
        for i in 0..<configuration.drivers {
            let account = try await client.createDriver(
                name: "Simulated driver \(i + 1)", vehicle: "simulated car", plate: "SIM-\(i + 1)")
            tokens.append(account.token)
        }
        progress("\(tokens.count) drivers created")
        let board = LiveTripBoard()
        let counters = SimulationCounters()
        let start = ContinuousClock.now
        let bookingEnd = start + .milliseconds(Int(configuration.durationSeconds * 1000))
        await withTaskGroup(of: Void.self) { group in
            for (index, token) in tokens.enumerated() {
                group.addTask {
                    var driver = LiveDriver(
                        simulation: self, token: token, board: board, counters: counters,
                        seed: configuration.seed &+ UInt64(index + 1) &* 0x9E37_79B9, nodes: nodes)
                    await driver.run(until: { board.stopped.load(ordering: .relaxed) })
                }
            }
            await bookRides(until: bookingEnd, nodes: nodes, board: board)
            await drain(board: board, until: bookingEnd + .milliseconds(Int(configuration.drainSeconds * 1000)))
            board.stopped.store(true, ordering: .relaxed)
        }
        var summary = await finalSummary(board: board)
        summary.declines = board.declines.load(ordering: .relaxed)
        summary.failures = board.failures.load(ordering: .relaxed) + counters.failed.load(ordering: .relaxed)
        summary.uploads = counters.uploads.load(ordering: .relaxed)
        return summary
    }

    /// Riders book at the configured rate until `end` (each rider in a task of its own: wait, maybe cancel).
    private func bookRides(until end: ContinuousClock.Instant, nodes: [Coordinate], board: LiveTripBoard) async {
        var random = SplitMix64(seed: configuration.seed)
        let interval = Duration.milliseconds(Int(60_000 / configuration.ridersPerMinute))
        var next = ContinuousClock.now
        await withTaskGroup(of: Void.self) { group in
            var n = 0
            while next < end {
                do { try await Task.sleep(until: next) } catch { return }
                next += interval
                n += 1
                guard let (pickup, dropoff) = ridePoints(nodes: nodes, random: &random) else { continue }
                let cancels = random.nextDouble() < configuration.cancelProbability
                let patience = 5 + Int(random.next() % 25)
                let rider = n
                group.addTask {
                    await ride(rider, from: pickup, to: dropoff, cancelAfter: cancels ? patience : nil, board: board)
                }
            }
        }
    }

    private func ride(
        _ n: Int, from pickup: Coordinate, to dropoff: Coordinate, cancelAfter seconds: Int?, board: LiveTripBoard
    ) async {
        do throws(ClientError) {
            let account = try await CabAPIClient(baseURL: configuration.baseURL).createRider(
                name: "Simulated rider \(n)")
            let client = CabAPIClient(baseURL: configuration.baseURL, token: account.token)
            let booking = try await client.book(from: pickup, to: dropoff)
            guard let pin = booking.pin else {
                throw ClientError(.unexpectedResponse, "A booking came without its PIN.")
            }
            board.add(
                booking.id, .init(riderToken: account.token, pin: pin, pickup: booking.pickup, dropoff: booking.dropoff)
            )
            guard let seconds else { return }
            do { try await Task.sleep(for: .seconds(seconds)) } catch { return }
            let now = try await client.booking(id: booking.id)
            guard ["requested", "dispatching", "accepted", "arriving"].contains(now.status) else { return }
            _ = try await client.cancelBooking(id: booking.id, reason: "simulated rider changed plans")
        } catch {
            if Self.isLostRace(error) { return }
            board.failures.add(1, ordering: .relaxed)
            progress("rider \(n): \(error.message)")
        }
    }

    /// A pickup and a drop-off 0.5 to 4 km apart by air, joined by a road route; nil after 20 tries.
    private func ridePoints(nodes: [Coordinate], random: inout SplitMix64) -> (Coordinate, Coordinate)? {
        for _ in 0..<20 {
            let a = nodes[Int(random.next() % UInt64(nodes.count))]
            let b = nodes[Int(random.next() % UInt64(nodes.count))]
            let straight = a.distanceMeters(to: b)
            guard (straight > 500 || nodes.count < 100) && straight < 4_000 else { continue }
            guard (try? routing.route(from: a, to: b)) != nil else { continue }
            return (a, b)
        }
        return nil
    }

    /// Waits (checking every 2 s) until every booking has ended, or `end`.
    private func drain(board: LiveTripBoard, until end: ContinuousClock.Instant) async {
        while ContinuousClock.now < end {
            let summary = await finalSummary(board: board)
            if summary.open == 0 { return }
            do { try await Task.sleep(for: .seconds(2)) } catch { return }
        }
    }

    /// Every booking's status as its rider reads it now.
    private func finalSummary(board: LiveTripBoard) async -> Summary {
        var s = Summary()
        for (trip, ticket) in board.allTickets {
            s.bookings += 1
            let client = CabAPIClient(baseURL: configuration.baseURL, token: ticket.riderToken)
            switch try? await client.booking(id: trip).status {
            case "completed": s.completed += 1
            case "cancelled_by_rider": s.cancelledByRider += 1
            case "cancelled_by_driver": s.cancelledByDriver += 1
            case "no_driver_found": s.noDriver += 1
            case "expired": s.expired += 1
            default: s.open += 1
            }
        }
        return s
    }

    /// A 409: another driver, a cancel or a timeout got there first (the simulation expects these).
    package static func isLostRace(_ error: ClientError) -> Bool {
        (error.underlying as? ServerProblem)?.status == 409
    }

    /// Creates one from every stored property (what the memberwise initializer was in `cab`).
    package init(
        routing: RoutingService, configuration: Configuration, progress: @escaping @Sendable (String) -> Void
    ) {
        self.routing = routing
        self.configuration = configuration
        self.progress = progress
    }
}
