import CabClient
import CabGeo
import Foundation

/// What the device's location service reports.
public enum LocationEvent: Hashable, Sendable {
    /// A position.
    case sample(LocationSample)
    /// The person (or a device policy) refused location access.
    case denied
    /// Access is allowed but no position could be found (indoors, airplane mode).
    case unavailable
}

/// The device's location service behind a protocol: `CLLocationManager` in the apps, a scripted route in tests.
@MainActor
public protocol LocationSource: AnyObject {
    /// Starts reporting to `deliver` (asking for permission first where the platform needs it).
    func start(_ deliver: @escaping @MainActor (LocationEvent) -> Void)
    /// Stops reporting.
    func stop()
}

/// The time, injected so tests use a manual clock and never sleep.
public protocol AppClock: Sendable {
    /// The current time.
    func now() -> Date
}

/// The device's clock.
public struct SystemClock: AppClock {
    /// The device's clock.
    public init() {}
    /// `Date()`.
    public func now() -> Date { Date() }
}
