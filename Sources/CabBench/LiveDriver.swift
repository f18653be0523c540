import CabClient
import CabGeo
import CabLoopback
import Foundation
import Synchronization

/// One simulated driver of `LiveTripSimulation`: listens to its offer stream in one task and drives in another.
package struct LiveDriver {
    package let simulation: LiveTripSimulation
    package let token: String
    package let board: LiveTripBoard
    package let counters: SimulationCounters
    package var random: SplitMix64
    package var position: Coordinate
    package let client: CabAPIClient

    package init(
        simulation: LiveTripSimulation, token: String, board: LiveTripBoard, counters: SimulationCounters, seed: UInt64,
        nodes: [Coordinate]
    ) {
        self.simulation = simulation
        self.token = token
        self.board = board
        self.counters = counters
        random = SplitMix64(seed: seed)
        position = nodes[Int(random.next() % UInt64(nodes.count))]
        client = CabAPIClient(baseURL: simulation.configuration.baseURL, token: token)
    }

    /// Goes online and works until `done()`, then goes offline.
    package mutating func run(until done: @escaping @Sendable () -> Bool) async {
        let reporter: LocationReporter
        do {
            reporter = try LocationReporter(
                configuration: LocationReporterConfiguration(
                    minDistanceMeters: 5, minIntervalSeconds: 1, maxSilenceSeconds: 20),
                transport: CountingTransport(client: client, counters: counters))
            try await report(reporter, speed: 0, heading: 0)
            try await client.setDriverOnline(true)
        } catch {
            board.failures.add(1, ordering: .relaxed)
            simulation.progress("driver: \(error.message)")
            return
        }
        let seat = Seat()
        let decline = simulation.configuration.declineProbability
        let listenerSeed = random.next()
        let (client, board) = (client, board)
        // CabClient's EventSource, as a driver app follows its offers: it reconnects with `Last-Event-ID`.
        let listener = Task {
            var random = SplitMix64(seed: listenerSeed)
            for await delivery in EventSource.deliveries(of: client.request("/v1/driver/stream")) {
                switch delivery {
                case .event(let event):
                    await Self.handle(
                        event, client: client, board: board, seat: seat, declines: random.nextDouble() < decline)
                case .interrupted:
                    board.failures.add(1, ordering: .relaxed)
                case .refused:
                    board.failures.add(1, ordering: .relaxed)
                    return
                case .opened:
                    break
                }
            }
        }
        while !done() {
            if let trip = seat.assigned.withLock({ $0 }) {
                await drive(trip, reporter: reporter)
                seat.assigned.withLock { $0 = nil }
                seat.busy.store(false, ordering: .relaxed)
                continue
            }
            do {
                try await Task.sleep(for: .seconds(1))
                try await report(reporter, speed: 0, heading: 0)
            } catch {
                counters.failed.add(1, ordering: .relaxed)
            }
        }
        listener.cancel()
        do { try await client.setDriverOnline(false) } catch { board.failures.add(1, ordering: .relaxed) }
    }

    /// The trip a driver has won (set by the listener, cleared by the driving loop) and whether it is taken.
    package final class Seat: Sendable {
        package let assigned = Mutex<String?>(nil)
        package let busy = Atomic<Bool>(false)
    }

    /// Answers an offer (accept, or decline when `declines`) while free; notes cancelled trips.
    package static func handle(
        _ event: ServerSentEvent, client: CabAPIClient, board: LiveTripBoard, seat: Seat, declines: Bool
    ) async {
        struct Payload: Decodable {
            var trip_id: String
            var status: String?
        }
        guard let payload = try? JSONDecoder().decode(Payload.self, from: Data(event.data.utf8)) else { return }
        switch event.type {
        case "offer":
            guard !seat.busy.load(ordering: .relaxed) else { return }
            do throws(ClientError) {
                if declines {
                    _ = try await client.declineTrip(payload.trip_id)
                    board.declines.add(1, ordering: .relaxed)
                } else {
                    seat.busy.store(true, ordering: .relaxed)
                    _ = try await client.acceptTrip(payload.trip_id)
                    seat.assigned.withLock { $0 = payload.trip_id }
                }
            } catch {
                if !declines { seat.busy.store(false, ordering: .relaxed) }
                if !LiveTripSimulation.isLostRace(error) { board.failures.add(1, ordering: .relaxed) }
            }
        case "cancelled" where payload.status != nil:
            board.markCancelled(payload.trip_id)
        default:
            break
        }
    }

    /// Drives `trip`: to the pickup, arrive, start with the PIN, to the drop-off, complete; stops when cancelled.
    package mutating func drive(_ trip: String, reporter: LocationReporter) async {
        guard let ticket = board.ticket(trip) else { return }
        do throws(ClientError) {
            guard await driveRoute(to: ticket.pickup, trip: trip, reporter: reporter) else { return }
            _ = try await client.arrived(trip)
            _ = try await client.startTrip(trip, code: ticket.pin)
            guard await driveRoute(to: ticket.dropoff, trip: trip, reporter: reporter) else { return }
            try? await Task.sleep(for: .seconds(1))  // the last fix must be stored before the fare reads the trail
            _ = try await client.completeTrip(trip)
            simulation.progress("trip \(trip) completed")
        } catch {
            if !LiveTripSimulation.isLostRace(error) {
                board.failures.add(1, ordering: .relaxed)
                simulation.progress("trip \(trip): \(error.message)")
            }
        }
    }

    /// Drives the road route to `destination` in real time (times the speed factor), reporting once a second;
    /// false when the trip was cancelled on the way or the drive could not be done.
    private mutating func driveRoute(to destination: Coordinate, trip: String, reporter: LocationReporter) async -> Bool
    {
        guard let plan = try? simulation.routing.route(from: position, to: destination) else { return false }
        if plan.route.geometry.count >= 2 {
            var walker = RouteWalker(
                geometry: plan.route.geometry, distanceMeters: plan.route.distanceMeters,
                durationSeconds: plan.route.durationSeconds)
            // The server drops fixes implying more than 70 m/s.
            let factor = min(simulation.configuration.speedFactor, 60 / walker.speedMetersPerSecond)
            while !walker.isFinished {
                if board.isCancelled(trip) { return false }
                do { try await Task.sleep(for: .seconds(1)) } catch { return false }
                walker.advance(seconds: factor)
                position = walker.position
                do {
                    try await report(
                        reporter, speed: walker.speedMetersPerSecond * factor, heading: walker.headingDegrees)
                } catch {
                    counters.failed.add(1, ordering: .relaxed)
                }
            }
        }
        return !board.isCancelled(trip)
    }

    private func report(_ reporter: LocationReporter, speed: Double, heading: Double) async throws(ClientError) {
        try await reporter.record(
            LocationSample(
                coordinate: position, time: Date(), accuracyMeters: 5, speedMetersPerSecond: speed,
                headingDegrees: heading))
        try await reporter.poll()
    }
}
