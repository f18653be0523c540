import CabTestSupport
import CabAppModels
import CabClient
import CabGeo
import Foundation
import Testing

/// A driver played through `DriverModel` against the real server: a scripted location service and a manual
/// clock kept at or just ahead of real time (the server refuses fixes more than 5 s in its future).
@MainActor
final class SimulatedDriver {
    let server: LiveServer
    let location = ScriptedLocation()
    let clock: ManualClock
    let model: DriverModel
    let transport: RecordingTransportBox
    /// Every position delivered to the model, in order.
    private(set) var delivered: [LocationSample] = []

    /// How far ahead of real time fixes may be made (under the server's 5 s).
    static let lead = 3.0

    init(_ server: LiveServer, clockStart: Date = Date()) {
        self.server = server
        clock = ManualClock(clockStart)
        let box = RecordingTransportBox()
        let clock = self.clock
        transport = box
        model = DriverModel(
            client: server.client, location: location, clock: clock,
            streamConfiguration: .init(reconnectDelay: .milliseconds(200)),
            transport: { client in box.make(client, clock: clock) })
    }

    /// Signs up, goes online and reports `position`; returns once the server has it.
    func comeOnline(at position: Coordinate) async throws {
        model.signUp(name: "Sam Driver", vehicle: "Toyota Prius", plate: "ABC-\(Int.random(in: 100...999))")
        await model.settle()
        try #require(model.shift.phase == .offline, "\(model.shift.error ?? "")")
        model.goOnline()
        await model.settle()
        try #require(model.shift.phase == .waiting, "\(model.shift.error ?? "")")
        send(LocationSample(coordinate: position, time: clock.date, accuracyMeters: 5, speedMetersPerSecond: 0))
        await model.settle()
    }

    /// Taps something on the driver's screen with the phone's clock at real time (it runs while the test waits
    /// for the server), then waits for the model.
    func tap(_ body: (DriverModel) -> Void) async {
        clock.catchUp(to: Date())
        body(model)
        await model.settle()
    }

    /// Delivers one position now.
    func send(_ sample: LocationSample) {
        clock.catchUp(to: sample.time)
        delivered.append(sample)
        location.send(.sample(sample))
    }

    /// Drives `road` at `speed` m/s, one position a second, paced so no fix is made more than `lead` seconds
    /// ahead of real time; returns the positions delivered.
    @discardableResult
    func drive(_ road: [Coordinate], speed: Double) async -> [LocationSample] {
        clock.catchUp(to: Date())
        let samples = ScriptedRoute(points: road).samples(
            speed: speed, step: 1, start: clock.date.addingTimeInterval(1))
        for sample in samples {
            while Date().addingTimeInterval(Self.lead) < sample.time { try? await Task.sleep(for: .milliseconds(25)) }
            send(sample)
            model.tick()
            await model.settle()
        }
        // No fix may be later than the server's clock at the next command (Complete counts fixes up to now).
        while let last = samples.last, Date() <= last.time { try? await Task.sleep(for: .milliseconds(25)) }
        return samples
    }
}

/// Makes the model's transport once it has its token, and keeps it for the test.
final class RecordingTransportBox: @unchecked Sendable {
    // @unchecked Sendable: `made` is written once, on the main actor, when the model signs in, before any read.
    private(set) var made: RecordingTransport?

    func make(_ client: CabAPIClient, clock: ManualClock) -> any LocationTransport {
        let transport = RecordingTransport(client, clock: clock)
        made = transport
        return transport
    }
}
