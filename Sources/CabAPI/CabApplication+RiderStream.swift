import CabCore
import CabDispatch
import CabGeo
import CabHTTP

extension CabApplication {
    /// The rider's live trip (`GET /v1/bookings/{id}/stream`), tracking links (`POST /v1/bookings/{id}/share`,
    /// `GET /v1/track/{token}`, `GET /v1/track/{token}/stream`) and `GET /v1/stats`.
    func registerRiderStream(on router: inout Router) {
        router.get("/v1/bookings/{id}/stream") { [self] request in
            let booking = try visibleBooking(request, to: try authenticate(request))
            return try followingStream(booking, after: try Self.lastEventID(request))
        }
        router.post("/v1/bookings/{id}/share") { [self] request in
            let viewer = try authenticate(request, roles: [.rider, .dispatcher])
            let booking = try visibleBooking(request, to: viewer)
            guard !booking.status.isTerminal else {
                throw ProblemType.tripOver.error(
                    "This trip is over (\(booking.status.situation)); there is nothing to share.")
            }
            let token = try requireDispatch().links.create(for: booking.id)
            return .json(ShareResponse(token: token, url: "/t/\(token)"), status: 201)
        }
        router.get("/v1/track/{token}") { [self] request in
            let booking = try sharedBooking(request)
            let dispatch = try requireDispatch()
            var track = TrackResponse(booking, driver: try driver(of: booking), live: dispatch.liveView(of: booking))
            track.dropoffETASeconds = dispatch.dropoffETA(of: booking.id)
            return .json(track)
        }
        router.get("/v1/track/{token}/stream") { [self] request in
            try followingStream(try sharedBooking(request), after: try Self.lastEventID(request))
        }
        router.get("/v1/stats") { [self] request in
            _ = try authenticate(request, roles: [.dispatcher])
            return .json(try services.requireStore().pickupStatistics(limit: 100_000, now: services.now()))
        }
    }

    /// The live booking a tracking token shows: 404 for an unknown token, 410 once the trip has ended.
    func sharedBooking(_ request: HTTPRequest) throws -> Booking {
        let token = request.pathParameters["token"] ?? ""
        guard let id = try requireDispatch().links.booking(for: token),
            let booking = try services.requireStore().booking(id)
        else {
            throw HTTPError.notFound("This tracking link does not exist; ask for a new one.")
        }
        guard !booking.status.isTerminal else {
            throw ProblemType.linkEnded.error(
                "This trip has ended (\(booking.status.situation)); the link no longer works.")
        }
        return booking
    }

    /// An SSE stream of `booking`: its status (and driver) now, the latest position and ETA, then live events;
    /// it ends after the terminal status. Each status carries the trip's version as its event id, so a stream
    /// opened again with `Last-Event-ID` (`after`) on any node skips the status it has and continues with newer
    /// ones. The stream subscribes before it reads the trip (`DispatchCoordinator.follow`), so a transition
    /// landing while it opens is in the snapshot or in the events after it.
    func followingStream(_ booking: Booking, after lastVersion: UInt64?) throws -> HTTPResponse {
        let dispatch = try requireDispatch()
        let stream = EventStream(capacity: 128)
        let followed = try TripNotifier.follow(booking.id, into: stream, on: dispatch) { stored in
            let booking = stored ?? booking
            let driver = try driver(of: booking)
            if lastVersion != UInt64(booking.version) {
                TripNotifier.send(
                    .status(booking.id, booking.status, driver: driver, version: booking.version), to: stream)
            }
            guard !booking.status.isTerminal else { return }
            if let driver { TripNotifier.send(.driver(driver), to: stream) }
            let live = dispatch.liveView(of: booking)
            if let p = live.position { TripNotifier.send(.position(p), to: stream) }
            if let e = live.etaSeconds { TripNotifier.send(.pickupETA(seconds: e), to: stream) }
            if let e = dispatch.dropoffETA(of: booking.id) {
                TripNotifier.send(.dropoffETA(booking.id, seconds: e), to: stream)
            }
        }
        if !followed { stream.finish() }
        return stream.response()
    }
}

/// `{"token", "url"}`.
struct ShareResponse: Encodable {
    var token: String
    var url: String
}

/// The shared trip as JSON: no PIN, no fare, no rider.
struct TrackResponse: Encodable {
    var status: TripState
    var pickup: Coordinate
    var dropoff: Coordinate
    var pickupName: String?
    var dropoffName: String?
    var driver: TripEvents.DriverInfo?
    var position: TripEvents.Position?
    var updatedAt: Instant?
    var etaSeconds: Int?
    /// During the ride: seconds by road to the drop-off.
    var dropoffETASeconds: Int?
    var route: Route

    struct Route: Encodable {
        var polyline: String?
        var geometry: GeoJSONLineString?
    }

    init(_ b: Booking, driver: Driver?, live: (position: TripPosition?, etaSeconds: Int?)) {
        status = b.status
        pickup = b.pickup
        dropoff = b.dropoff
        pickupName = b.pickupName
        dropoffName = b.dropoffName
        self.driver = driver.map(TripEvents.DriverInfo.init)
        position = live.position.map(TripEvents.Position.init)
        updatedAt = live.position?.time
        etaSeconds = live.etaSeconds
        route = Route(
            polyline: b.routePolyline,
            geometry: b.routePolyline.flatMap { Polyline.decode($0) }.map(GeoJSONLineString.init))
    }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(status, forKey: .status)
        try c.encode(pickup, forKey: .pickup)
        try c.encode(dropoff, forKey: .dropoff)
        try c.encode(pickupName, forKey: .pickupName)
        try c.encode(dropoffName, forKey: .dropoffName)
        try c.encode(driver, forKey: .driver)
        try c.encode(position, forKey: .position)
        try c.encode(updatedAt, forKey: .updatedAt)
        try c.encode(etaSeconds, forKey: .etaSeconds)
        try c.encode(dropoffETASeconds, forKey: .dropoffETASeconds)
        try c.encode(route, forKey: .route)
    }

    enum CodingKeys: String, CodingKey {
        case status, pickup, dropoff, driver, position, route
        case pickupName = "pickup_name"
        case dropoffName = "dropoff_name"
        case updatedAt = "updated_at"
        case etaSeconds = "eta_s"
        case dropoffETASeconds = "dropoff_eta_s"
    }
}
