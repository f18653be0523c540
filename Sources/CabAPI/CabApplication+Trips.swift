import CabCore
import CabDispatch
import CabHTTP

extension CabApplication {
    /// Driver status and the trip commands of issues 7 and 13: `POST /v1/driver/status`,
    /// `POST /v1/trips/{id}/accept|decline|depart|arrived|start|complete|cancel|assign|redispatch`.
    func registerTripEndpoints(on router: inout Router) {
        router.post("/v1/driver/status") { [self] request in
            let driver = try authenticatedDriver(request)
            let body = try request.decodeJSON(TripBodies.Status.self)
            guard body.status == "online" || body.status == "offline" else {
                throw ProblemType.invalidStatus.error("'status' must be \"online\" or \"offline\".")
            }
            try requireDispatch().setOnline(driver, body.status == "online")
            return .json(TripBodies.Status(status: body.status))
        }
        router.post("/v1/trips/{id}/accept") { [self] request in
            let driver = try authenticatedDriver(request)
            return try bookingResponse(
                try requireDispatch().accept(try tripID(request), by: driver), for: .driver(driver))
        }
        router.post("/v1/trips/{id}/decline") { [self] request in
            let driver = try authenticatedDriver(request)
            return try bookingResponse(
                try requireDispatch().decline(try tripID(request), by: driver), for: .driver(driver))
        }
        router.post("/v1/trips/{id}/depart") { [self] request in
            let actor = try authenticate(request, roles: [.driver])
            return try bookingResponse(
                try requireDispatch().handle(.depart, try tripID(request), by: actor), for: actor)
        }
        router.post("/v1/trips/{id}/arrived") { [self] request in
            let actor = try authenticate(request, roles: [.driver, .dispatcher])
            let body = request.body.isEmpty ? nil : try request.decodeJSON(TripBodies.Arrived.self)
            let trip = try tripID(request)
            return try bookingResponse(
                try requireDispatch().arrive(trip, by: actor, override: body?.override ?? false), for: actor)
        }
        router.post("/v1/trips/{id}/start") { [self] request in try startTrip(request) }  // CabApplication+TripStart
        router.post("/v1/trips/{id}/complete") { [self] request in
            let actor = try authenticate(request, roles: [.driver, .dispatcher])
            return try bookingResponse(try requireDispatch().complete(try tripID(request), by: actor), for: actor)
        }
        // A driver's cancel hands the trip back to dispatch (or reports a no-show); a dispatcher's ends it.
        router.post("/v1/trips/{id}/cancel") { [self] request in
            let actor = try authenticate(request, roles: [.driver, .dispatcher])
            let body = request.body.isEmpty ? nil : try request.decodeJSON(TripBodies.Cancel.self)
            let reason = try BookingRequestBodies.optionalText(body?.reason, "reason") ?? ""
            let dispatch = try requireDispatch()
            let trip = try tripID(request)
            let booking: Booking
            if actor.role == .driver {
                booking =
                    try reason == "no_show"
                    ? dispatch.handle(.noShow, trip, by: actor) : dispatch.redispatch(trip, by: actor)
            } else {
                booking = try dispatch.dispatcherCancel(trip, by: actor, reason: reason)
            }
            return try bookingResponse(booking, for: actor)
        }
        router.post("/v1/trips/{id}/redispatch") { [self] request in
            let actor = try authenticate(request, roles: [.dispatcher])
            return try bookingResponse(try requireDispatch().redispatch(try tripID(request), by: actor), for: actor)
        }
        router.post("/v1/trips/{id}/assign") { [self] request in
            let actor = try authenticate(request, roles: [.dispatcher])
            let body = try request.decodeJSON(TripBodies.Assign.self)
            return try bookingResponse(
                try requireDispatch().assign(try tripID(request), to: body.driverID, by: actor), for: actor)
        }
    }

    func authenticatedDriver(_ request: HTTPRequest) throws -> DriverID {
        try Authenticator(accounts: services.requireStore()).driver(for: request)
    }

    /// The `{id}` path parameter as a trip (booking) id, or a 404.
    func tripID(_ request: HTTPRequest) throws(HTTPError) -> BookingID {
        let text = request.pathParameters["id"] ?? ""
        guard let id = BookingID(text) else { throw .notFound("No trip \(text.prefix(40)); check the id.") }
        return id
    }

    /// The dispatch coordinator, or a 503 problem saying what is missing.
    func requireDispatch() throws(HTTPError) -> DispatchCoordinator {
        guard let dispatch = services.dispatch else {
            throw ProblemType.noDispatch.error(
                "Dispatch needs a map and a store; import a map with `cab import MAP.osm.pbf --data DIR`.")
        }
        return dispatch
    }
}

/// Request bodies of the trip endpoints.
enum TripBodies {
    /// `{"status": "online" | "offline"}` (also the answer).
    struct Status: Codable { var status: String }
    /// `{"code": PIN or QR payload}`.
    struct Start: Decodable { var code: String }
    /// `{"reason"?}`.
    struct Cancel: Decodable { var reason: String? }
    /// `{"override"?}`: a dispatcher marks the arrival without the driver's position.
    struct Arrived: Decodable { var override: Bool? }
    /// `{"driver_id"}`.
    struct Assign: Decodable {
        var driverID: DriverID
        enum CodingKeys: String, CodingKey { case driverID = "driver_id" }
    }
}
