import CabCore
import CabDispatch
import CabGeo
import CabHTTP
import CabRouting
import Foundation

extension CabApplication {
    /// Estimates, bookings (create with `Idempotency-Key`, read, list, QR code, cancel) and the trip-state table.
    func registerBookingEndpoints(on router: inout Router) {
        router.post("/v1/estimates") { [self] request in
            let body = try request.decodeJSON(BookingRequestBodies.Trip.self)
            try BookingRequestBodies.validateTrip(pickup: body.pickup, dropoff: body.dropoff)
            return .json(EstimateResponse(try pricedRoute(from: body.pickup, to: body.dropoff)))
        }
        router.post("/v1/bookings") { [self] request in try createBooking(request) }
        router.get("/v1/bookings") { [self] request in try listBookings(request) }
        router.get("/v1/bookings/{id}") { [self] request in
            let viewer = try authenticate(request)
            return try bookingResponse(try visibleBooking(request, to: viewer), for: viewer)
        }
        // The QR carries the rider's secret (`RiderCodes`): the rider's and a dispatcher's, never the driver's.
        router.get("/v1/bookings/{id}/qr.svg") { [self] request in
            let booking = try visibleBooking(request, to: try authenticate(request, roles: [.rider, .dispatcher]))
            return Self.privateImage(
                Array(try QRCode(encoding: riderCodes.payload(for: booking.id)).svg().utf8), "image/svg+xml")
        }
        router.get("/v1/bookings/{id}/qr.png") { [self] request in
            let booking = try visibleBooking(request, to: try authenticate(request, roles: [.rider, .dispatcher]))
            return Self.privateImage(try QRCode(encoding: riderCodes.payload(for: booking.id)).png(), "image/png")
        }
        router.post("/v1/bookings/{id}/cancel") { [self] request in
            let viewer = try authenticate(request)
            let booking = try visibleBooking(request, to: viewer)
            let body = request.body.isEmpty ? nil : try request.decodeJSON(BookingRequestBodies.Cancel.self)
            let reason = try BookingRequestBodies.optionalText(body?.reason, "reason") ?? ""
            let cancelled = try requireDispatch().riderCancel(booking.id, by: viewer, reason: reason)
            return try bookingResponse(cancelled, for: viewer)
        }
        router.get("/v1/trip-states") { [services] _ in .json(services.dispatch?.configuration.table ?? .standard) }
    }

    func createBooking(_ request: HTTPRequest) throws -> HTTPResponse {
        let rider = try authenticate(request, roles: [.rider])
        guard let riderID = rider.riderID else { throw ProblemType.forbidden.error("Only a rider may book.") }
        let key = request.header("idempotency-key")
        if let key, key.isEmpty || key.utf8.count > 255 {
            throw ProblemType.invalidIdempotencyKey.error(
                "The Idempotency-Key header must be 1 to 255 bytes; send a fresh random key per booking.")
        }
        let body = try request.decodeJSONBody(BookingRequestBodies.NewBooking.self)
        try BookingRequestBodies.validateTrip(pickup: body.pickup, dropoff: body.dropoff)
        let pickupName = try BookingRequestBodies.optionalText(body.pickupName, "pickup_name")
        let dropoffName = try BookingRequestBodies.optionalText(body.dropoffName, "dropoff_name")
        let vehicleType = try BookingRequestBodies.vehicleType(body.vehicleType)
        let priced = try pricedRoute(from: body.pickup, to: body.dropoff)
        var random = SystemRandomNumberGenerator()
        let createdAt = services.now()
        let booking = Booking(
            id: .timeOrdered(at: createdAt, using: &random), riderID: riderID, pickup: body.pickup,
            pickupName: pickupName,
            dropoff: body.dropoff, dropoffName: dropoffName, routeDistanceMeters: priced.distanceMeters,
            routeDurationSeconds: priced.durationSeconds, fareEstimate: priced.fare.total, vehicleType: vehicleType,
            pin: Booking.randomPIN(using: &random), createdAt: createdAt, routePolyline: priced.polyline)
        let fingerprint = [
            "\(body.pickup)", "\(body.dropoff)", pickupName ?? "", dropoffName ?? "", vehicleType?.rawValue ?? "",
        ].joined(separator: "\u{1F}")
        // The trip service stores the booking with dispatch's first step; the write joins the store's next group
        // commit and the connection waits parked (no thread) until it is durable, then the answer is made on a
        // server thread (`DeferredResponse`). Offering starts from the service's own queue.
        let pending = DeferredResponse()
        try requireDispatch().book(
            booking,
            idempotencyKey: key.map { IdempotencyKey(key: $0, requestFingerprint: TokenAuthority.hash(fingerprint)) }
        ) { [self] result in
            pending.complete { [self] in
                let creation = try result.get()
                var response = try bookingResponse(creation.booking, for: rider, status: creation.created ? 201 : 200)
                response.headers.append(("Location", "/v1/bookings/\(creation.booking.id.rawValue)"))
                return response
            }
        }
        return .deferred(pending)
    }

    func listBookings(_ request: HTTPRequest) throws -> HTTPResponse {
        let viewer = try authenticate(request)
        var query = BookingQuery(limit: try request.integerParameter("limit", default: 20, in: 1...100))
        query.cursor = request.query["cursor"].flatMap { $0.isEmpty ? nil : $0 }
        for name in (request.query["status"] ?? "").split(separator: ",") {
            guard let state = TripState(rawValue: String(name)) else {
                let known = TripState.allCases.map(\.rawValue).joined(separator: ", ")
                throw ProblemType.invalidParameter.error("'status' must be a comma-separated list of: \(known).")
            }
            query.statuses.insert(state)
        }
        switch viewer.role {
        case .rider: query.riderID = viewer.riderID
        case .driver: query.driverID = viewer.driverID
        case .dispatcher, .system: break
        }
        let page = try services.requireStore().bookings(query)
        let now = services.now()
        let items = try page.items.map {
            var item = try BookingResponse(
                $0, viewer: viewer, driver: driver(of: $0), tariff: services.tariff, now: now)
            item.qrCode = try qrCode(of: $0, for: viewer)
            return item
        }
        return .json(BookingPage(bookings: items, nextCursor: page.nextCursor))
    }

    /// The booking named by the `{id}` path parameter if `viewer` may see it: a rider their own, a driver what is
    /// offered or assigned to them, a dispatcher all. Anything else is the same 404 as a booking that does not
    /// exist, so ids of other riders' bookings are not revealed.
    func visibleBooking(_ request: HTTPRequest, to viewer: Principal) throws -> Booking {
        let text = request.pathParameters["id"] ?? ""
        let notFound = HTTPError.notFound("No booking \(text.prefix(40)) is visible to you; check the id.")
        guard let id = BookingID(text), let booking = try services.requireStore().booking(id) else { throw notFound }
        switch viewer.role {
        case .rider:
            guard viewer.riderID == booking.riderID else { throw notFound }
        case .driver:
            guard let driver = viewer.driverID,
                booking.driverID == driver || services.dispatch?.isOffered(booking.id, to: driver) == true
            else { throw notFound }
        case .dispatcher, .system:
            break
        }
        return booking
    }

    /// BOOKING as JSON for `viewer` (the PIN and the QR code's text only for the rider and dispatchers).
    func bookingResponse(_ booking: Booking, for viewer: Principal, status: Int = 200) throws -> HTTPResponse {
        var body = BookingResponse(
            booking, viewer: viewer, driver: try driver(of: booking), tariff: services.tariff, now: services.now())
        body.qrCode = try qrCode(of: booking, for: viewer)
        return .bytes(body.jsonBytes(), contentType: "application/json", status: status)
    }

    /// What the booking's QR code encodes, for the viewers who see its PIN; nil for a driver (who must be shown
    /// it by the rider).
    func qrCode(of booking: Booking, for viewer: Principal) throws -> String? {
        viewer.role == .rider || viewer.role == .dispatcher ? try riderCodes.payload(for: booking.id) : nil
    }

    func driver(of booking: Booking) throws -> Driver? {
        guard let id = booking.driverID else { return nil }
        return try services.requireStore().driver(id)
    }

    /// The road route between two points with the fare of the current tariff (whole metres and seconds).
    func pricedRoute(from pickup: Coordinate, to dropoff: Coordinate) throws -> PricedRoute {
        let plan = try services.requireRouting().route(from: pickup, to: dropoff)
        let meters = Int(plan.route.distanceMeters.rounded())
        let seconds = Int((Double(plan.route.durationMilliseconds) / 1000).rounded())
        guard meters > 0 else {
            throw ProblemType.pickupEqualsDropoff.error(
                "The pickup and the dropoff lead to the same point on the road; choose a different destination.")
        }
        guard meters <= Tariff.maximumDistanceMeters, seconds <= Tariff.maximumDurationSeconds else {
            throw ProblemType.tripTooLong.error("The route is too long to price; choose a nearer destination.")
        }
        return PricedRoute(
            plan: plan, distanceMeters: meters, durationSeconds: seconds,
            fare: services.tariff.fare(distanceMeters: meters, durationSeconds: seconds))
    }

    static func privateImage(_ bytes: [UInt8], _ type: String) -> HTTPResponse {
        var response = HTTPResponse.bytes(bytes, contentType: type)
        response.headers.append(("Cache-Control", "private, max-age=86400"))
        return response
    }
}

/// A route with the whole metres and seconds it was priced on, and the fare.
struct PricedRoute {
    var plan: RoutePlan
    var distanceMeters: Int
    var durationSeconds: Int
    var fare: FareBreakdown
    var polyline: String { Polyline.encode(plan.route.geometry) }
}

/// `POST /v1/estimates`: `{"distance_m", "duration_s", "polyline", "geometry", "fare", "pickup", "dropoff"}`, where
/// `pickup`/`dropoff` are the points on the road the route starts and ends at.
struct EstimateResponse: Encodable {
    var distanceMeters: Int
    var durationSeconds: Int
    var polyline: String
    var geometry: GeoJSONLineString
    var fare: FareResponse
    var pickup: Coordinate
    var dropoff: Coordinate

    init(_ priced: PricedRoute) {
        distanceMeters = priced.distanceMeters
        durationSeconds = priced.durationSeconds
        polyline = priced.polyline
        geometry = GeoJSONLineString(priced.plan.route.geometry)
        fare = FareResponse(priced.fare)
        pickup = priced.plan.start
        dropoff = priced.plan.end
    }

    enum CodingKeys: String, CodingKey {
        case distanceMeters = "distance_m"
        case durationSeconds = "duration_s"
        case polyline, geometry, fare, pickup, dropoff
    }
}

/// `GET /v1/bookings`: `{"bookings": [BOOKING...], "next_cursor"}` (`null` on the last page).
struct BookingPage: Encodable {
    var bookings: [BookingResponse]
    var nextCursor: String?

    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(bookings, forKey: .bookings)
        try c.encode(nextCursor, forKey: .nextCursor)
    }

    enum CodingKeys: String, CodingKey {
        case bookings
        case nextCursor = "next_cursor"
    }
}
