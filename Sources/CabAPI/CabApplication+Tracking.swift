import CabCore
import CabDispatch
import CabGeo
import CabHTTP
import CabTracking

extension CabApplication {
    /// `POST /v1/driver/locations`, `GET /v1/drivers/nearby`, `GET /v1/drivers/{id}/location`,
    /// `GET /v1/drivers/{id}/trail`.
    func registerTrackingEndpoints(on router: inout Router) {
        // Inline on the event loop with a cached token and room in the history queue; parked on the pool
        // (and run again from the start) when either would wait.
        router.post("/v1/driver/locations", execution: .inlineUnlessParked) { [services] request in
            let (tracking, auth) = try services.requireTracking()
            let cached = request.mayWait ? nil : try auth.cachedDriver(for: request)
            if cached == nil { try request.parkUnlessItMayWait() }
            let driver = try cached ?? auth.driver(for: request)
            let body = try request.decodeJSONBody(LocationBatchBody.self)
            if let named = body.driverID, named != driver.rawValue {
                throw ProblemType.forbidden.error(
                    "A driver posts only their own positions; leave out 'driver_id' (the token says who you are).")
            }
            let limit = tracking.configuration.maxFixesPerBatch
            guard body.fixes.count <= limit else {
                throw ProblemType.tooManyFixes.error(
                    "A batch holds at most \(limit) fixes; this one has \(body.fixes.count). Split it.")
            }
            guard !body.fixes.isEmpty else {
                throw ProblemType.noFixes.error("'fixes' is empty; send 1 to \(limit) fixes.")
            }
            let outcome = try tracking.ingest(body.fixes.map(\.fix), from: driver, request: request)
            if let wait = outcome.retryAfterSeconds {
                throw ProblemType.tooManyRequests.error(
                    "This driver sends batches too often; retry after \(wait) s (send fixes in batches).",
                    headers: ["Retry-After": String(wait)])
            }
            return LocationReceiptJSON(outcome).response
        }

        router.get("/v1/drivers/nearby") { [services] request in
            let (tracking, auth) = try services.requireTracking()
            _ = try auth.authenticator.principal(for: request, roles: [.dispatcher])
            let point = try request.coordinateParameters()
            let k = try request.integerParameter("k", default: 10, in: 1...100)
            var vehicles: Set<VehicleClass>?
            if let text = request.query["vehicle_type"] {
                guard let type = VehicleType(rawValue: text) else {
                    let names = VehicleType.allCases.map(\.rawValue).joined(separator: ", ")
                    throw ProblemType.invalidParameter.error("'vehicle_type' must be one of \(names).")
                }
                vehicles = [VehicleClass(type)]
            }
            var statuses: Set<DriverStatus> = [.available]
            if let text = request.query["status"] {
                let parsed = text.split(separator: ",").map { DriverStatus(name: $0) }
                guard !parsed.isEmpty, parsed.allSatisfy({ $0 != nil }) else {
                    throw ProblemType.invalidParameter.error(
                        "'status' must be a comma-separated list of available, busy, offline.")
                }
                statuses = Set(parsed.compactMap { $0 })
            }
            let found = tracking.fleet.nearest(
                to: point, k: k, filter: DriverFilter(statuses: statuses, vehicleClasses: vehicles),
                now: services.now().millisecondsSinceEpoch)
            // Names and plates for the dispatcher's list (at most 100 reads of the accounts table), and ratings.
            let store = services.store
            let ratings = try store?.ratings(of: found.map(\.driver)) ?? [:]
            return .json(
                NearbyDriversJSON(
                    drivers: try found.map { nearby in
                        var json = DriverLocationJSON(
                            nearby.driver, nearby.position, distanceMeters: nearby.distanceMeters)
                        if let account = try store?.driver(nearby.driver) {
                            json.name = account.name
                            json.plate = account.plate
                        }
                        return RatedDriverJSON(json, ratings[nearby.driver])
                    }))
        }

        router.get("/v1/drivers/{id}/location") { [services] request in
            let (tracking, auth) = try services.requireTracking()
            let driver = try auth.visibleDriver(request)
            guard let position = tracking.fleet.position(of: driver) else {
                throw HTTPError.notFound("Driver \(driver) has not reported a position yet.")
            }
            return .json(DriverLocationJSON(driver, position))
        }

        router.get("/v1/drivers/{id}/trail") { [services] request in
            let (tracking, auth) = try services.requireTracking()
            let driver = try auth.visibleDriver(request)
            return try TrailDocument.response(for: driver, request: request, tracking: tracking, now: services.now())
        }
    }
}

/// Authentication for the tracking endpoints.
struct TrackingAuth: Sendable {
    let authenticator: Authenticator

    /// The calling driver, or 401/403.
    func driver(for request: HTTPRequest) throws(HTTPError) -> DriverID { try authenticator.driver(for: request) }

    /// The calling driver without I/O; nil when the token is not cached (`Authenticator.cachedDriver(for:)`).
    func cachedDriver(for request: HTTPRequest) throws(HTTPError) -> DriverID? {
        try authenticator.cachedDriver(for: request)
    }

    /// The driver `{id}` of the path when the caller may see them: the driver themself or a dispatcher.
    /// Someone else's driver id is a 404, as if it did not exist.
    func visibleDriver(_ request: HTTPRequest) throws(HTTPError) -> DriverID {
        let principal = try authenticator.principal(for: request, roles: [.driver, .dispatcher])
        guard let text = request.pathParameters["id"], let id = DriverID(text) else {
            throw HTTPError.notFound("'\(request.pathParameters["id"] ?? "")' is not a driver id (dr_...).")
        }
        if principal.role == .driver && principal.driverID != id {
            throw HTTPError.notFound("No driver \(id) that you may see.")
        }
        return id
    }
}

extension TrackingService {
    /// `ingest`, without waiting while `request` runs on an event-loop thread: there it asks to be parked
    /// (`ParkRequest`, nothing done) when the driver's first position or a full history queue would wait.
    func ingest(_ fixes: [LocationFix], from driver: DriverID, request: HTTPRequest) throws(ParkRequest)
        -> IngestOutcome
    {
        if request.mayWait { return ingest(fixes, from: driver) }
        guard let outcome = ingestWithoutWaiting(fixes, from: driver) else { throw ParkRequest() }
        return outcome
    }
}

extension Services {
    /// Live tracking and its authentication, or a 503 problem saying how to get them.
    func requireTracking() throws(HTTPError) -> (TrackingService, TrackingAuth) {
        guard let tracking else {
            throw ProblemType.noTracking.error(
                "Live tracking needs the store; start `cab serve` with a data directory (`--data DIR`).")
        }
        return (tracking, TrackingAuth(authenticator: Authenticator(accounts: tracking.accounts)))
    }
}
