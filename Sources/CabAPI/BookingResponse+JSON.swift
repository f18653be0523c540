import CabCore

extension BookingResponse {
    /// The same bytes as the `Encodable` conformance through `JSONCoding.encoder` (sorted keys), written by hand:
    /// `JSONEncoder` spent most of a `POST /v1/bookings` request's CPU on the route geometry's numbers.
    func jsonBytes() -> [UInt8] {
        var out = JSONText(capacity: 1024 + (route.polyline?.utf8.count ?? 0) * 12)
        out.raw("{")
        out.key("actual_pickup_at", first: true)
        out.instant(actualPickupAt)
        out.key("cancellation")
        if let c = cancellation {
            out.raw("{")
            out.key("at", first: true)
            out.instant(c.at)
            out.key("by")
            out.string(c.by)
            out.key("fee")
            Self.write(c.fee, to: &out)
            out.key("reason")
            out.string(c.reason)
            out.raw("}")
        } else {
            out.raw("null")
        }
        out.key("created_at")
        out.instant(createdAt)
        out.key("driver")
        if let d = driver {
            out.raw("{")
            out.key("id", first: true)
            out.string(d.id)
            out.key("name")
            out.string(d.name)
            out.key("plate")
            out.string(d.plate)
            out.key("vehicle")
            out.string(d.vehicle)
            out.key("vehicle_type")
            out.string(d.vehicleType)
            out.raw("}")
        } else {
            out.raw("null")
        }
        out.key("dropoff")
        out.coordinate(dropoff)
        out.key("dropoff_name")
        out.string(dropoffName)
        out.key("fare")
        Self.write(fare, to: &out)
        out.key("final_fare")
        if let f = finalFare { Self.write(f, to: &out) } else { out.raw("null") }
        out.key("id")
        out.string(id)
        out.key("late")
        out.raw(late ? "true" : "false")
        out.key("pickup")
        out.coordinate(pickup)
        out.key("pickup_name")
        out.string(pickupName)
        out.key("pin")
        out.string(pin)
        out.key("promised_pickup_at")
        out.instant(promisedPickupAt)
        out.key("promised_pickup_eta_s")
        out.integer(promisedPickupEtaSeconds)
        out.key("qr")
        out.string(qr)
        out.key("qr_code")
        if let qrCode { out.string(qrCode) } else { out.raw("null") }
        out.key("rating")
        if let r = rating {
            out.raw("{")
            out.key("comment", first: true)
            out.string(r.comment)
            out.key("stars")
            out.integer(r.stars)
            out.raw("}")
        } else {
            out.raw("null")
        }
        out.key("receipt")
        if let r = receipt {
            out.raw("{")
            out.key("basis", first: true)
            out.string(r.basis)
            out.key("distance_m")
            out.integer(r.distanceMeters)
            out.key("duration_s")
            out.integer(r.durationSeconds)
            out.key("lines")
            out.raw("[")
            for (i, line) in r.lines.enumerated() {
                if i > 0 { out.raw(",") }
                out.raw("{")
                out.key("amount", first: true)
                Self.write(line.amount, to: &out)
                out.key("label")
                out.string(line.label)
                out.raw("}")
            }
            out.raw("]")
            out.key("total")
            Self.write(r.total, to: &out)
            out.key("trail_polyline")
            out.string(r.trailPolyline)
            out.raw("}")
        } else {
            out.raw("null")
        }
        out.key("redispatch_count")
        out.integer(redispatchCount)
        out.key("route")
        out.raw("{")
        out.key("distance_m", first: true)
        out.integer(route.distanceMeters)
        out.key("duration_s")
        out.integer(route.durationSeconds)
        out.key("geometry")
        if let polyline = route.polyline, out.lineString(polyline: polyline) {} else { out.raw("null") }
        out.key("polyline")
        out.string(route.polyline)
        out.raw("}")
        out.key("status")
        out.string(status)
        out.key("vehicle_type")
        out.string(vehicleType)
        out.raw("}")
        return out.bytes
    }

    private static func write(_ money: MoneyResponse, to out: inout JSONText) {
        out.raw("{")
        out.key("amount_minor", first: true)
        out.integer(money.amountMinor)
        out.key("currency")
        out.string(money.currency)
        out.key("display")
        out.string(money.display)
        out.raw("}")
    }

    private static func write(_ fare: FareResponse, to out: inout JSONText) {
        out.raw("{\"lines\":[")
        for (i, line) in fare.lines.enumerated() {
            if i > 0 { out.raw(",") }
            out.raw("{")
            out.key("amount", first: true)
            write(line.amount, to: &out)
            out.key("detail")
            out.string(line.detail)
            out.key("label")
            out.string(line.label)
            out.raw("}")
        }
        out.raw("]")
        out.key("total")
        write(fare.total, to: &out)
        out.raw("}")
    }
}
