import CabCore
import CabGeo
import CabHTTP
import CabStore
import CabTracking

extension CabApplication {
    /// `POST /v1/driver/devices` (a driver gets a device id for a tracking app) and `GET|POST /osmand` (the
    /// OsmAnd protocol that Traccar Client and OsmAnd speak).
    func registerOsmAndEndpoints(on router: inout Router) {
        router.post("/v1/driver/devices") { [services] request in
            let (_, auth) = try services.requireTracking()
            let driver = try auth.driver(for: request)
            guard let store = services.store else { throw ProblemType.noStore.error("No store is open.") }
            let deviceID = TokenAuthority.hex(try TokenAuthority.randomBytes(16))
            try store.addCredential(OsmAndRequest.keyHash(deviceID), for: driver, at: services.now())
            return .json(["device_id": deviceID, "url": "/osmand"], status: 201)
        }
        // Inline like `POST /v1/driver/locations` (see there), parked when the device key is not cached.
        let osmand: HTTPHandler = { [services] request in
            let (tracking, _) = try services.requireTracking()
            let report = try OsmAndRequest(request, now: services.now())
            let key = OsmAndRequest.keyHash(report.deviceID)
            var principal = request.mayWait ? nil : tracking.accounts.cachedPrincipal(forTokenHash: key)
            if principal == nil { try request.parkUnlessItMayWait() }
            do {
                if principal == nil { principal = try tracking.accounts.principal(forTokenHash: key) }
            } catch {
                throw ProblemType.storeUnavailable.error(
                    "The account store could not be read; try again.", headers: ["Retry-After": "1"])
            }
            guard let driver = principal?.driverID else {
                throw ProblemType.unknownDevice.error(
                    "The device id is not known; get one with POST /v1/driver/devices and set it in the app.")
            }
            guard let fix = report.fix else {
                tracking.countDropped(.invalid)
                return .text("")
            }
            let outcome = try tracking.ingest([fix], from: driver, request: request)
            if let wait = outcome.retryAfterSeconds {
                throw ProblemType.tooManyRequests.error(
                    "Retry after \(wait) s.", headers: ["Retry-After": String(wait)])
            }
            return .text("")
        }
        router.get("/osmand", execution: .inlineUnlessParked, handler: osmand)
        router.post("/osmand", execution: .inlineUnlessParked, handler: osmand)
    }
}
