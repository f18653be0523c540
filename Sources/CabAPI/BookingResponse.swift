import CabCore
import CabGeo

/// A booking as the API sends it (BOOKING in docs/api.md), shaped for one viewer: the PIN goes to the rider who
/// booked and to dispatchers, never to a driver (the driver must hear it from the rider to start the trip).
///
/// Every field of the contract is present; absent values are JSON `null`.
struct BookingResponse: Encodable, Sendable {
    /// The route priced at booking.
    struct RouteSummary: Encodable, Sendable {
        var distanceMeters: Int
        var durationSeconds: Int
        var polyline: String?
        /// The polyline as GeoJSON (decoded when encoded; `jsonBytes` writes it straight from the polyline).
        var geometry: GeoJSONLineString? { polyline.flatMap { Polyline.decode($0) }.map(GeoJSONLineString.init) }

        func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(distanceMeters, forKey: .distanceMeters)
            try c.encode(durationSeconds, forKey: .durationSeconds)
            try c.encode(polyline, forKey: .polyline)
            try c.encode(geometry, forKey: .geometry)
        }

        enum CodingKeys: String, CodingKey {
            case distanceMeters = "distance_m"
            case durationSeconds = "duration_s"
            case polyline, geometry
        }
    }

    /// The driver as a rider sees them.
    struct DriverSummary: Encodable, Sendable {
        var id: String
        var name: String
        var vehicle: String
        var plate: String
        var vehicleType: String

        init(_ driver: Driver) {
            id = driver.id.rawValue
            name = driver.name
            vehicle = driver.vehicle
            plate = driver.plate
            vehicleType = driver.vehicleType.rawValue
        }

        enum CodingKeys: String, CodingKey {
            case id, name, vehicle, plate
            case vehicleType = "vehicle_type"
        }
    }

    /// Who cancelled (their role), when, why and the fee.
    struct CancellationSummary: Encodable, Sendable {
        var by: String
        var at: Instant
        var reason: String
        var fee: MoneyResponse
    }

    /// The final fare's figures, basis, lines and the driven trail.
    struct Receipt: Encodable, Sendable {
        struct Line: Encodable, Sendable {
            var label: String
            var amount: MoneyResponse
        }

        var distanceMeters: Int
        var durationSeconds: Int
        var basis: String
        var lines: [Line]
        var total: MoneyResponse
        var trailPolyline: String?

        /// Lines from `tariff` when it reproduces the charged total, else the total as one "Fare" line.
        init(_ receipt: TripReceipt, charged: Money, tariff: Tariff) {
            distanceMeters = receipt.distanceMeters
            durationSeconds = receipt.durationSeconds
            basis = receipt.basis.rawValue
            total = MoneyResponse(charged)
            trailPolyline = receipt.trailPolyline
            lines = [Line(label: "Fare", amount: MoneyResponse(charged))]
            if tariff.currency == charged.currency,
                (0...Tariff.maximumDistanceMeters).contains(receipt.distanceMeters),
                (0...Tariff.maximumDurationSeconds).contains(receipt.durationSeconds)
            {
                let fare = tariff.fare(distanceMeters: receipt.distanceMeters, durationSeconds: receipt.durationSeconds)
                if fare.total == charged, !fare.lines.isEmpty {
                    lines = fare.lines.map { Line(label: Self.label($0.kind), amount: MoneyResponse($0.amount)) }
                }
            }
        }

        static func label(_ kind: FareBreakdown.Kind) -> String {
            switch kind {
            case .base: "Base fare"
            case .distance: "Distance"
            case .time: "Time"
            case .minimum: "Minimum fare"
            case .bookingFee: "Booking fee"
            }
        }

        func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(distanceMeters, forKey: .distanceMeters)
            try c.encode(durationSeconds, forKey: .durationSeconds)
            try c.encode(basis, forKey: .basis)
            try c.encode(lines, forKey: .lines)
            try c.encode(total, forKey: .total)
            try c.encode(trailPolyline, forKey: .trailPolyline)
        }

        enum CodingKeys: String, CodingKey {
            case basis, lines, total
            case distanceMeters = "distance_m"
            case durationSeconds = "duration_s"
            case trailPolyline = "trail_polyline"
        }
    }

    /// The rider's stars and comment.
    struct Rating: Encodable, Sendable {
        var stars: Int
        var comment: String?

        func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(stars, forKey: .stars)
            try c.encode(comment, forKey: .comment)
        }

        enum CodingKeys: String, CodingKey { case stars, comment }
    }

    var id: String
    var status: String
    var pickup: Coordinate
    var dropoff: Coordinate
    var pickupName: String?
    var dropoffName: String?
    var vehicleType: String?
    var route: RouteSummary
    var fare: FareResponse
    var qr: String
    /// What the QR code encodes (`RiderCodes`: `<booking id>.<secret>`), for an app that draws the code itself;
    /// like the PIN, only for the rider and dispatchers. Set by the application, which holds the secret.
    var qrCode: String?
    var pin: String?
    var createdAt: Instant
    var driver: DriverSummary?
    var promisedPickupEtaSeconds: Int?
    var promisedPickupAt: Instant?
    var actualPickupAt: Instant?
    var cancellation: CancellationSummary?
    var finalFare: FareResponse?
    var redispatchCount: Int
    var late: Bool
    var receipt: Receipt?
    var rating: Rating?

    /// Shapes `booking` for `viewer` at `now` (whether it is late; nil: as of its last change); `driver` is the
    /// assigned driver's account, `tariff` itemises the fare.
    init(_ booking: Booking, viewer: Principal, driver: Driver?, tariff: Tariff, now: Instant? = nil) {
        id = booking.id.rawValue
        status = booking.status.rawValue
        pickup = booking.pickup
        dropoff = booking.dropoff
        pickupName = booking.pickupName
        dropoffName = booking.dropoffName
        vehicleType = booking.vehicleType?.rawValue
        route = RouteSummary(
            distanceMeters: booking.routeDistanceMeters, durationSeconds: booking.routeDurationSeconds,
            polyline: booking.routePolyline)
        fare = Self.estimate(booking, tariff: tariff)
        qr = "/v1/bookings/\(booking.id.rawValue)/qr.svg"
        pin = viewer.role == .rider || viewer.role == .dispatcher ? booking.pin : nil
        createdAt = booking.createdAt
        self.driver = driver.map(DriverSummary.init)
        promisedPickupAt = booking.promisedPickupAt
        promisedPickupEtaSeconds = booking.promisedPickupAt.map { promised in
            let from = booking.acceptedAt ?? booking.createdAt
            return Int(max(0, promised.milliseconds(since: from)) / 1000)
        }
        actualPickupAt = booking.pickedUpAt
        cancellation = booking.cancellation.map {
            CancellationSummary(by: $0.by.role.rawValue, at: $0.at, reason: $0.reason, fee: MoneyResponse($0.fee))
        }
        finalFare = booking.finalFare.map { FareResponse(total: $0, label: "final fare") }
        redispatchCount = booking.redispatchCount
        late = booking.isLate(at: now ?? booking.statusChangedAt)
        if let r = booking.receipt, let charged = booking.finalFare {
            receipt = Receipt(r, charged: charged, tariff: tariff)
        }
        rating = booking.rating.map { Rating(stars: $0.stars, comment: $0.comment) }
    }

    /// The itemised estimate when the current tariff reproduces the stored total, else the stored total alone.
    static func estimate(_ booking: Booking, tariff: Tariff) -> FareResponse {
        if tariff.currency == booking.fareEstimate.currency,
            (0...Tariff.maximumDistanceMeters).contains(booking.routeDistanceMeters),
            (0...Tariff.maximumDurationSeconds).contains(booking.routeDurationSeconds)
        {
            let breakdown = tariff.fare(
                distanceMeters: booking.routeDistanceMeters, durationSeconds: booking.routeDurationSeconds)
            if breakdown.total == booking.fareEstimate { return FareResponse(breakdown) }
        }
        return FareResponse(total: booking.fareEstimate, label: "estimate")
    }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id)
        try c.encode(status, forKey: .status)
        try c.encode(pickup, forKey: .pickup)
        try c.encode(dropoff, forKey: .dropoff)
        try c.encode(pickupName, forKey: .pickupName)
        try c.encode(dropoffName, forKey: .dropoffName)
        try c.encode(vehicleType, forKey: .vehicleType)
        try c.encode(route, forKey: .route)
        try c.encode(fare, forKey: .fare)
        try c.encode(qr, forKey: .qr)
        try c.encode(qrCode, forKey: .qrCode)
        try c.encode(pin, forKey: .pin)
        try c.encode(createdAt, forKey: .createdAt)
        try c.encode(driver, forKey: .driver)
        try c.encode(promisedPickupEtaSeconds, forKey: .promisedPickupEtaSeconds)
        try c.encode(promisedPickupAt, forKey: .promisedPickupAt)
        try c.encode(actualPickupAt, forKey: .actualPickupAt)
        try c.encode(cancellation, forKey: .cancellation)
        try c.encode(finalFare, forKey: .finalFare)
        try c.encode(redispatchCount, forKey: .redispatchCount)
        try c.encode(late, forKey: .late)
        try c.encode(receipt, forKey: .receipt)
        try c.encode(rating, forKey: .rating)
    }

    enum CodingKeys: String, CodingKey {
        case id, status, pickup, dropoff, route, fare, qr, pin, driver, cancellation, late, receipt, rating
        case redispatchCount = "redispatch_count"
        case qrCode = "qr_code"
        case pickupName = "pickup_name"
        case dropoffName = "dropoff_name"
        case vehicleType = "vehicle_type"
        case createdAt = "created_at"
        case promisedPickupEtaSeconds = "promised_pickup_eta_s"
        case promisedPickupAt = "promised_pickup_at"
        case actualPickupAt = "actual_pickup_at"
        case finalFare = "final_fare"
    }
}
