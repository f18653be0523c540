import CabAppModels
import CabClient
import CabGeo
import CabTestSupport
import Foundation
import Synchronization

/// A location service the test drives: permission answers and positions, delivered when the test says.
@MainActor
final class ScriptedLocation: LocationSource {
    private var deliver: (@MainActor (LocationEvent) -> Void)?
    private(set) var starts = 0
    private(set) var stops = 0
    var isRunning: Bool { deliver != nil }

    func start(_ deliver: @escaping @MainActor (LocationEvent) -> Void) {
        starts += 1
        self.deliver = deliver
    }

    func stop() {
        stops += 1
        deliver = nil
    }

    /// Delivers `event` if the service is running.
    func send(_ event: LocationEvent) { deliver?(event) }
}

/// A route driven at a steady speed: positions along a polyline at a fixed time step.
struct ScriptedRoute {
    let points: [Coordinate]

    /// Samples every `step` seconds at `speed` m/s from the start of the line to its end, the first at `start`.
    func samples(speed: Double, step: Double, start: Date, heading: Bool = false) -> [LocationSample] {
        var out: [LocationSample] = []
        var legStart = 0.0
        var travelled = 0.0
        var index = 0
        var time = start
        let total = zip(points, points.dropFirst()).reduce(0.0) { $0 + $1.0.distanceMeters(to: $1.1) }
        while true {
            while index < points.count - 1,
                legStart + points[index].distanceMeters(to: points[index + 1]) < travelled
            {
                legStart += points[index].distanceMeters(to: points[index + 1])
                index += 1
            }
            let here: Coordinate
            if index >= points.count - 1 {
                here = points[points.count - 1]
            } else {
                let a = points[index]
                let b = points[index + 1]
                let length = a.distanceMeters(to: b)
                let f = length > 0 ? (travelled - legStart) / length : 0
                here = Coordinate(
                    latitude: a.latitude + (b.latitude - a.latitude) * f,
                    longitude: a.longitude + (b.longitude - a.longitude) * f)
            }
            out.append(LocationSample(coordinate: here, time: time, accuracyMeters: 5, speedMetersPerSecond: speed))
            if travelled >= total { return out }
            travelled = min(total, travelled + speed * step)
            time = time.addingTimeInterval(step)
        }
    }

    /// The length along the samples' positions (what the server's trail adds up).
    static func length(of samples: [LocationSample]) -> Double {
        zip(samples, samples.dropFirst()).reduce(0) { $0 + $1.0.coordinate.distanceMeters(to: $1.1.coordinate) }
    }
}

/// Polls `condition` (a real server's stream answers on its own time, slower when the whole suite runs) for up to
/// `seconds`.
@MainActor
func eventually(_ seconds: Double = 30, _ condition: @MainActor () -> Bool) async -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(20))
    }
    return condition()
}

/// The shared manual clock as the apps' clock.
extension ManualClock: AppClock {
    /// The time now, as a `Date`.
    public func now() -> Date { date }
}
