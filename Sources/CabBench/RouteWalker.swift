import CabGeo
import CabLoopback

/// A point moving along a route's geometry at the route's own average speed: where a simulated car is after
/// some seconds of driving, and which way it faces.
package struct RouteWalker {
    package let geometry: [Coordinate]
    private let cumulativeMeters: [Double]
    /// Metres per second along the route.
    package let speedMetersPerSecond: Double
    private(set) var travelledMeters = 0.0
    private var segment = 0

    /// A walker at the start of `geometry`, driving `distanceMeters` in `durationSeconds`.
    package init(geometry: [Coordinate], distanceMeters: Double, durationSeconds: Double) {
        precondition(geometry.count >= 2, "a route to walk has at least two points")
        self.geometry = geometry
        var sums = [0.0]
        for (a, b) in zip(geometry, geometry.dropFirst()) {
            sums.append(sums[sums.count - 1] + a.distanceMeters(to: b))
        }
        cumulativeMeters = sums
        speedMetersPerSecond = max(2, min(35, distanceMeters / max(1, durationSeconds)))
    }

    /// True once the end is reached.
    package var isFinished: Bool { travelledMeters >= cumulativeMeters[cumulativeMeters.count - 1] }

    /// Drives on for `seconds`.
    package mutating func advance(seconds: Double) {
        travelledMeters = min(
            cumulativeMeters[cumulativeMeters.count - 1], travelledMeters + seconds * speedMetersPerSecond)
        while segment < geometry.count - 2 && cumulativeMeters[segment + 1] < travelledMeters { segment += 1 }
    }

    /// Where the car is now.
    package var position: Coordinate {
        let a = geometry[segment]
        let b = geometry[segment + 1]
        let length = cumulativeMeters[segment + 1] - cumulativeMeters[segment]
        let t = length > 0 ? min(1, max(0, (travelledMeters - cumulativeMeters[segment]) / length)) : 0
        return Coordinate(
            latitude: a.latitude + (b.latitude - a.latitude) * t,
            longitude: a.longitude + (b.longitude - a.longitude) * t)
    }

    /// The direction of travel in degrees clockwise from north.
    package var headingDegrees: Double { geometry[segment].bearingDegrees(to: geometry[segment + 1]) }
}
