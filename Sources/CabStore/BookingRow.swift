import CabCore
import CabGeo
import CabSQLite

/// How a `Booking` maps to a row of `bookings` (one place for the column list and its order).
enum BookingRow {
    static let columns = """
        id, rider_id, pickup_lat, pickup_lon, pickup_name, dropoff_lat, dropoff_lon, dropoff_name, \
        route_distance_m, route_duration_s, currency, fare_estimate_minor, vehicle_type, status, created_ms, \
        status_changed_ms, pin, promised_pickup_ms, driver_id, accepted_ms, arrived_ms, picked_up_ms, \
        completed_ms, final_fare_minor, cancel_role, cancel_actor_id, cancel_ms, cancel_reason, cancel_fee_minor, \
        route_polyline, redispatch_count, pickup_overdue_ms, fare_distance_m, fare_duration_s, fare_basis, \
        trail_polyline, rating_stars, rating_comment, rated_ms, version
        """

    static let insert =
        "INSERT INTO bookings (\(columns)) VALUES (\(Array(repeating: "?", count: 40).joined(separator: ", ")))"

    /// Every column but the immutable ones, compare-and-set on the status and the version (`?16` id, `?17`
    /// expected status, `?25` expected version: the one before `?24`).
    static let update = """
        UPDATE bookings SET status = ?1, status_changed_ms = ?2, promised_pickup_ms = ?3, driver_id = ?4, \
        accepted_ms = ?5, arrived_ms = ?6, picked_up_ms = ?7, completed_ms = ?8, final_fare_minor = ?9, \
        cancel_role = ?10, cancel_actor_id = ?11, cancel_ms = ?12, cancel_reason = ?13, cancel_fee_minor = ?14, \
        vehicle_type = ?15, redispatch_count = ?18, pickup_overdue_ms = ?19, fare_distance_m = ?20, \
        fare_duration_s = ?21, fare_basis = ?22, trail_polyline = ?23, version = ?24 \
        WHERE id = ?16 AND status = ?17 AND version = ?25
        """

    static func values(_ b: Booking) -> [any SQLiteBindable] {
        [
            b.id.rawValue, b.riderID.rawValue, b.pickup.latitude, b.pickup.longitude, b.pickupName,
            b.dropoff.latitude, b.dropoff.longitude, b.dropoffName, b.routeDistanceMeters, b.routeDurationSeconds,
            b.fareEstimate.currency.code, b.fareEstimate.minorUnits, b.vehicleType?.rawValue, b.status.rawValue,
            b.createdAt.millisecondsSinceEpoch, b.statusChangedAt.millisecondsSinceEpoch, b.pin,
        ] + tripValues(b) + [b.routePolyline] + journeyValues(b)
            + [b.rating?.stars, b.rating?.comment, b.rating?.at.millisecondsSinceEpoch, b.version]
    }

    static func updateValues(_ b: Booking, expected: TripState) -> [any SQLiteBindable] {
        [b.status.rawValue, b.statusChangedAt.millisecondsSinceEpoch] + tripValues(b)
            + [b.vehicleType?.rawValue, b.id.rawValue, expected.rawValue] + journeyValues(b)
            + [b.version, b.version - 1]
    }

    /// Re-dispatches, the late mark and the receipt, in column order from `redispatch_count` to `trail_polyline`.
    private static func journeyValues(_ b: Booking) -> [any SQLiteBindable] {
        [
            b.redispatchCount, b.pickupOverdueAt?.millisecondsSinceEpoch, b.receipt?.distanceMeters,
            b.receipt?.durationSeconds, b.receipt?.basis.rawValue, b.receipt?.trailPolyline,
        ]
    }

    /// What the trip fills in as it goes, in column order from `promised_pickup_ms` to `cancel_fee_minor` (the
    /// same order in `columns` and in `update`).
    private static func tripValues(_ b: Booking) -> [any SQLiteBindable] {
        [
            b.promisedPickupAt?.millisecondsSinceEpoch, b.driverID?.rawValue, b.acceptedAt?.millisecondsSinceEpoch,
            b.arrivedAt?.millisecondsSinceEpoch, b.pickedUpAt?.millisecondsSinceEpoch,
            b.completedAt?.millisecondsSinceEpoch, b.finalFare?.minorUnits, b.cancellation?.by.role.rawValue,
            b.cancellation?.by.id, b.cancellation?.at.millisecondsSinceEpoch, b.cancellation?.reason,
            b.cancellation?.fee.minorUnits,
        ]
    }

    /// Reads a row selected with `columns`.
    static func decode(_ r: some StoreRow) throws -> Booking {
        func instant(_ i: Int32) -> Instant? { r.optionalInt64(i).map(Instant.init(millisecondsSinceEpoch:)) }
        func corrupt(_ what: String) -> StoreError {
            StoreError(.corruptRow, "Booking \(r.string(0)) has an unreadable \(what).")
        }
        guard let id = BookingID(r.string(0)) else { throw corrupt("id") }
        guard let rider = RiderID(r.string(1)) else { throw corrupt("rider id") }
        let currency: Currency
        do { currency = try Currency(code: r.string(10)) } catch { throw corrupt("currency") }
        guard let status = TripState(rawValue: r.string(13)) else { throw corrupt("status") }
        guard Booking.isValidPIN(r.string(16)) else { throw corrupt("PIN") }
        func money(_ i: Int32) -> Money? { r.optionalInt64(i).map { Money(minorUnits: $0, currency: currency) } }
        var b = Booking(
            id: id, riderID: rider, pickup: Coordinate(latitude: r.double(2), longitude: r.double(3)),
            pickupName: r.optionalString(4), dropoff: Coordinate(latitude: r.double(5), longitude: r.double(6)),
            dropoffName: r.optionalString(7), routeDistanceMeters: r.int(8), routeDurationSeconds: r.int(9),
            fareEstimate: Money(minorUnits: r.int64(11), currency: currency),
            vehicleType: r.optionalString(12).flatMap(VehicleType.init(rawValue:)), pin: r.string(16),
            promisedPickupAt: instant(17), createdAt: Instant(millisecondsSinceEpoch: r.int64(14)),
            routePolyline: r.optionalString(29))
        b.status = status
        b.statusChangedAt = Instant(millisecondsSinceEpoch: r.int64(15))
        b.driverID = r.optionalString(18).flatMap(DriverID.init)
        b.acceptedAt = instant(19)
        b.arrivedAt = instant(20)
        b.pickedUpAt = instant(21)
        b.completedAt = instant(22)
        b.finalFare = money(23)
        b.redispatchCount = r.int(30)
        b.version = r.int(39)
        b.pickupOverdueAt = instant(31)
        if let meters = r.optionalInt64(32), let seconds = r.optionalInt64(33),
            let basis = r.optionalString(34).flatMap(FareBasis.init(rawValue:))
        {
            b.receipt = TripReceipt(
                distanceMeters: Int(meters), durationSeconds: Int(seconds), basis: basis,
                trailPolyline: r.optionalString(35))
        }
        if let stars = r.optionalInt64(36), let at = instant(38) {
            b.rating = try? TripRating(stars: Int(stars), comment: r.optionalString(37), at: at)
        }
        if let role = r.optionalString(24).flatMap(Role.init(rawValue:)), let at = instant(26) {
            let actorID = role == .system ? nil : r.optionalString(25)
            guard (role == .system) == (actorID == nil) else { throw corrupt("cancelling actor") }
            let by = Principal(role: role, id: actorID)
            b.cancellation = Cancellation(
                by: by, at: at, reason: r.optionalString(27) ?? "", fee: money(28) ?? .zero(currency))
        }
        return b
    }
}
