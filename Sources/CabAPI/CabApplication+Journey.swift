import CabCore
import CabDispatch
import CabGeo
import CabHTTP
import CabTracking

extension CabApplication {
    /// What riders and dispatchers need around a trip (issue 13): `POST /v1/bookings/{id}/rating`,
    /// `GET /v1/cars/nearby`, `GET /v1/trips?open=true`.
    func registerJourneyEndpoints(on router: inout Router) {
        router.post("/v1/bookings/{id}/rating") { [self] request in
            let rider = try authenticate(request, roles: [.rider])
            let booking = try visibleBooking(request, to: rider)
            let body = try request.decodeJSON(JourneyBodies.Rating.self)
            let comment = body.comment?.trimmingCharacters(in: .whitespacesAndNewlines)
            let rating: TripRating
            do {
                rating = try TripRating(
                    stars: body.stars, comment: comment?.isEmpty == true ? nil : comment, at: services.now())
            } catch let error as CoreError {
                throw APIError(.invalidRating, error.message)
            }
            return try bookingResponse(try services.requireStore().rate(booking.id, rating), for: rider)
        }
        router.get("/v1/cars/nearby") { [self] request in
            _ = try authenticate(request, roles: [.rider, .dispatcher])
            return .json(CarsNearbyJSON(try requireDispatch().carsNearby(try request.coordinateParameters())))
        }
        router.get("/v1/trips") { [self] request in
            _ = try authenticate(request, roles: [.dispatcher])
            guard request.query["open"] == "true" else {
                throw ProblemType.missingParameter.error("Add 'open=true': this list shows the open trips only.")
            }
            let limit = try request.integerParameter("limit", default: 200, in: 1...1_000)
            let now = services.now()
            let trips = try services.requireStore().newestOpenTrips(limit: limit).map { booking in
                OpenTripJSON(booking, driver: try driver(of: booking), now: now)
            }
            return .json(OpenTripsJSON(trips: trips))
        }
    }
}

/// Request bodies of the journey endpoints.
enum JourneyBodies {
    /// `{"stars": 1...5, "comment"?}`.
    struct Rating: Decodable {
        var stars: Int
        var comment: String?
    }
}

/// `GET /v1/cars/nearby`: `{"cars": [{"lat", "lon", "heading"}], "nearest_eta_s"}`.
struct CarsNearbyJSON: Encodable {
    struct Car: Encodable {
        var lat: Double
        var lon: Double
        var heading: Int?

        func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(lat, forKey: .lat)
            try c.encode(lon, forKey: .lon)
            try c.encode(heading, forKey: .heading)
        }

        enum CodingKeys: String, CodingKey { case lat, lon, heading }
    }

    var cars: [Car]
    var nearestETASeconds: Int?

    /// Coarse positions (3 decimals, about 100 m) and headings, no identities.
    init(_ nearby: NearbyCars) {
        func coarse(_ x: Double) -> Double { (x * 1000).rounded() / 1000 }
        cars = nearby.cars.map {
            Car(lat: coarse($0.coordinate.latitude), lon: coarse($0.coordinate.longitude), heading: $0.headingDegrees)
        }
        nearestETASeconds = nearby.nearestETASeconds
    }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(cars, forKey: .cars)
        try c.encode(nearestETASeconds, forKey: .nearestETASeconds)
    }

    enum CodingKeys: String, CodingKey {
        case cars
        case nearestETASeconds = "nearest_eta_s"
    }
}

/// `GET /v1/trips?open=true&limit=`: `{"trips": [OPEN_TRIP...]}`, the newest `limit` (default 200) first.
struct OpenTripsJSON: Encodable {
    var trips: [OpenTripJSON]
}

/// One open trip on the dispatcher's board.
struct OpenTripJSON: Encodable {
    var id: String
    var shortID: String
    var status: String
    var pickup: Coordinate
    var dropoff: Coordinate
    var pickupName: String?
    var dropoffName: String?
    var driver: BookingResponse.DriverSummary?
    var createdAt: Instant
    var promisedPickupAt: Instant?
    var late: Bool
    var redispatchCount: Int

    init(_ b: Booking, driver: Driver?, now: Instant) {
        id = b.id.rawValue
        shortID = b.id.shortForm
        status = b.status.rawValue
        pickup = b.pickup
        dropoff = b.dropoff
        pickupName = b.pickupName
        dropoffName = b.dropoffName
        self.driver = driver.map(BookingResponse.DriverSummary.init)
        createdAt = b.createdAt
        promisedPickupAt = b.promisedPickupAt
        late = b.isLate(at: now)
        redispatchCount = b.redispatchCount
    }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id)
        try c.encode(shortID, forKey: .shortID)
        try c.encode(status, forKey: .status)
        try c.encode(pickup, forKey: .pickup)
        try c.encode(dropoff, forKey: .dropoff)
        try c.encode(pickupName, forKey: .pickupName)
        try c.encode(dropoffName, forKey: .dropoffName)
        try c.encode(driver, forKey: .driver)
        try c.encode(createdAt, forKey: .createdAt)
        try c.encode(promisedPickupAt, forKey: .promisedPickupAt)
        try c.encode(late, forKey: .late)
        try c.encode(redispatchCount, forKey: .redispatchCount)
    }

    enum CodingKeys: String, CodingKey {
        case id, status, pickup, dropoff, driver, late
        case shortID = "short_id"
        case pickupName = "pickup_name"
        case dropoffName = "dropoff_name"
        case createdAt = "created_at"
        case promisedPickupAt = "promised_pickup_at"
        case redispatchCount = "redispatch_count"
    }
}
