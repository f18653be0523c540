import CabAppModels
import CabClient
import CabGeo
import CoreLocation

/// `LocationSource` over `CLLocationManager`: one position for the rider's pickup (when in use), or the
/// driver's continuous positions with a 20 m distance filter, in the background too (needs `UIBackgroundModes`
/// `location` in Info.plist and "Always" permission). Decisions about the positions are in `CabAppModels` and
/// `LocationReporter`; this only translates.
@MainActor
public final class CoreLocationSource: NSObject, LocationSource, CLLocationManagerDelegate {
    /// What the app needs.
    public enum Mode: Sendable {
        /// One position, asked while the app is open.
        case pickup
        /// Every 20 m, in the background too.
        case driving
    }

    private let manager = CLLocationManager()
    private let mode: Mode
    private var deliver: (@MainActor (LocationEvent) -> Void)?

    /// A source for `mode`. Create it on the main thread: the manager calls its delegate there.
    public init(mode: Mode) {
        self.mode = mode
        super.init()
        manager.delegate = self
        switch mode {
        case .pickup:
            manager.desiredAccuracy = kCLLocationAccuracyNearestTenMeters
        case .driving:
            manager.desiredAccuracy = kCLLocationAccuracyBest
            manager.distanceFilter = 20  // the origin app's 20 m; LocationReporter applies it again
            manager.activityType = .automotiveNavigation
            manager.pausesLocationUpdatesAutomatically = false
        }
    }

    /// Asks for permission if it was never asked, then reports.
    public func start(_ deliver: @escaping @MainActor (LocationEvent) -> Void) {
        self.deliver = deliver
        switch manager.authorizationStatus {
        case .notDetermined:
            // The answer comes in locationManagerDidChangeAuthorization.
            if mode == .driving {
                manager.requestAlwaysAuthorization()
            } else {
                manager.requestWhenInUseAuthorization()
            }
        case .denied, .restricted:
            deliver(.denied)
        default:
            begin()
        }
    }

    /// Stops reporting.
    public func stop() {
        deliver = nil
        manager.stopUpdatingLocation()
        if mode == .driving { manager.allowsBackgroundLocationUpdates = false }
    }

    private func begin() {
        switch mode {
        case .pickup:
            manager.requestLocation()
        case .driving:
            manager.allowsBackgroundLocationUpdates = true
            manager.showsBackgroundLocationIndicator = true
            manager.startUpdatingLocation()
        }
    }

    private func authorizationChanged(_ status: CLAuthorizationStatus) {
        guard deliver != nil else { return }
        switch status {
        case .denied, .restricted: deliver?(.denied)
        case .notDetermined: break
        default: begin()
        }
    }

    // The manager was made on the main thread, so it calls these there.

    nonisolated public func locationManagerDidChangeAuthorization(_ manager: CLLocationManager) {
        let status = manager.authorizationStatus
        MainActor.assumeIsolated { authorizationChanged(status) }
    }

    nonisolated public func locationManager(_ manager: CLLocationManager, didUpdateLocations locations: [CLLocation]) {
        let samples = locations.compactMap(Self.sample)
        MainActor.assumeIsolated {
            for sample in samples { deliver?(.sample(sample)) }
        }
    }

    nonisolated public func locationManager(_ manager: CLLocationManager, didFailWithError error: any Error) {
        let code = (error as? CLError)?.code
        MainActor.assumeIsolated {
            if code == .denied {
                deliver?(.denied)
            } else if mode == .pickup {
                deliver?(.unavailable)  // driving keeps listening: a lost fix comes back by itself
            }
        }
    }

    /// The sample of a Core Location fix; nil when the fix has no valid accuracy.
    nonisolated static func sample(_ location: CLLocation) -> LocationSample? {
        guard location.horizontalAccuracy >= 0 else { return nil }
        return LocationSample(
            coordinate: Coordinate(location.coordinate), time: location.timestamp,
            accuracyMeters: location.horizontalAccuracy,
            speedMetersPerSecond: location.speed >= 0 ? location.speed : nil,
            headingDegrees: location.course >= 0 ? location.course : nil)
    }
}
