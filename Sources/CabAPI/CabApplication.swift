import CabHTTP
import Synchronization

/// Where the web app and its vendored libraries are, and other settings of the API layer.
public struct APIConfiguration: Sendable {
    /// The web app's files (`Public/`); nil serves no web app.
    public var publicDirectory: String?
    /// Debian's Leaflet (`libjs-leaflet`), served at `/vendor/leaflet/`.
    public var leafletDirectory: String

    /// Creates a configuration.
    public init(publicDirectory: String? = "Public", leafletDirectory: String = "/usr/share/javascript/leaflet") {
        self.publicDirectory = publicDirectory
        self.leafletDirectory = leafletDirectory
    }
}

/// The SwiftCab API: the services it answers from, its router and its error table.
///
/// Each capability registers its endpoints in its own file (`CabApplication+Routing.swift`, ...);
/// `makeRouter()` is the one list of them.
public final class CabApplication: Sendable {
    /// API-level settings.
    public let configuration: APIConfiguration
    /// The metrics registry `/metrics` serves; features register their counters here.
    public let metrics: MetricsRegistry
    /// The loaded services.
    public let services: Services
    /// The riders' QR payloads and their check (`CabApplication+TripStart`).
    let riderCodes: RiderCodes
    /// Wrong start codes per trip.
    let startAttempts = Mutex(StartAttemptLimiter())
    let startCounters: StartCounters

    /// Creates the application over loaded `services`.
    public init(configuration: APIConfiguration = APIConfiguration(), services: Services, metrics: MetricsRegistry) {
        self.configuration = configuration
        self.services = services
        self.metrics = metrics
        riderCodes = RiderCodes(store: services.store, now: services.now)
        // Every rider's booking carries its QR code's text, so the key is read (made once, in the store) at start
        // rather than by the first booking's answer; a store that cannot answer now is asked again on first use.
        riderCodes.loadKeyIfPossible()
        startCounters = StartCounters(metrics)
        watchStoreHealth()
    }

    /// Every endpoint, in one router.
    public func makeRouter() -> Router {
        var router = Router()
        registerHealthEndpoints(on: &router)  // /healthz, /readyz, /metrics with the store's health
        registerRoutingEndpoints(on: &router)
        registerMapEndpoints(on: &router)
        registerPlaceEndpoints(on: &router)
        registerAccountEndpoints(on: &router)
        registerSignOut(on: &router)
        registerBookingEndpoints(on: &router)
        registerTripEndpoints(on: &router)
        registerJourneyEndpoints(on: &router)
        registerDriverStream(on: &router)
        registerRiderStream(on: &router)
        registerTrackingEndpoints(on: &router)
        registerOsmAndEndpoints(on: &router)
        registerFleetStreamEndpoints(on: &router)
        registerProblemEndpoints(on: &router)  // what problem documents' `type` URIs point at
        registerWebApp(on: &router)
        return router
    }

    /// Maps errors that are not `HTTPError` through the error table (`ErrorTable`); unknown errors are 500s with
    /// a generic detail, logged with the request id.
    public func errorMapper(log: (@Sendable (String) -> Void)?) -> HTTPErrorMapper {
        let fallback = HTTPServer.defaultErrorMapper(log: log)
        return { error, request in
            if let problem = ErrorTable.problem(for: error) { return problem.response(requestID: request.requestID) }
            return fallback(error, request)
        }
    }
}
