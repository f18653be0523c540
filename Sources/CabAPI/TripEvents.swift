import CabCore
import CabGeo

/// The JSON of the SSE events of issue 7 (docs/api.md, "Dispatch and trips").
package enum TripEvents {
    /// `event: offer` to a driver.
    package struct Offer: Encodable, Sendable {
        package var tripID: BookingID
        var pickup: Coordinate
        var dropoff: Coordinate
        var pickupName: String?
        var dropoffName: String?
        var etaSeconds: Int
        var expiresAt: Instant

        init(_ o: TripOffer) {
            tripID = o.tripID
            pickup = o.pickup
            dropoff = o.dropoff
            pickupName = o.pickupName
            dropoffName = o.dropoffName
            etaSeconds = o.etaSeconds
            expiresAt = o.expiresAt
        }

        enum CodingKeys: String, CodingKey {
            case pickup, dropoff
            case tripID = "trip_id"
            case pickupName = "pickup_name"
            case dropoffName = "dropoff_name"
            case etaSeconds = "eta_s"
            case expiresAt = "expires_at"
        }
    }

    /// `event: cancelled` to a driver: the trip was cancelled, or the offer was withdrawn (`reason`).
    struct Cancelled: Encodable, Sendable {
        var tripID: BookingID
        /// The role that ended it (`rider`, `driver`, `dispatcher`, `system`).
        var by: String
        var status: TripState?
        /// For withdrawn offers: `taken`, `expired`, `cancelled`; for a trip taken back from its driver:
        /// `driver_cancelled`, `pickup_overdue`, `dispatcher`.
        var reason: String?

        enum CodingKeys: String, CodingKey {
            case by, status, reason
            case tripID = "trip_id"
        }
    }

    /// `event: assigned` to a driver: the trip is theirs (accepted or assigned by a dispatcher).
    struct Assigned: Encodable, Sendable {
        var tripID: BookingID
        var status: TripState

        enum CodingKeys: String, CodingKey {
            case status
            case tripID = "trip_id"
        }
    }

    /// The assigned driver as a rider sees them.
    struct DriverInfo: Encodable, Sendable, Hashable {
        var id: DriverID
        var name: String
        var vehicle: String
        var plate: String
        var vehicleType: VehicleType

        init(_ d: Driver) {
            id = d.id
            name = d.name
            vehicle = d.vehicle
            plate = d.plate
            vehicleType = d.vehicleType
        }

        enum CodingKeys: String, CodingKey {
            case id, name, vehicle, plate
            case vehicleType = "vehicle_type"
        }
    }

    /// `event: status` to a booking's followers.
    struct Status: Encodable, Sendable {
        var tripID: BookingID
        var status: TripState
        var driver: DriverInfo?
        /// The trip's version (`Booking.version`); also the event's SSE id.
        var version: Int

        enum CodingKeys: String, CodingKey {
            case status, driver, version
            case tripID = "trip_id"
        }
    }

    /// `event: driver`.
    struct DriverEvent: Encodable, Sendable {
        var driver: DriverInfo
    }

    /// `event: position`: the driver's latest position (sent as each new fix arrives; one a fix).
    struct Position: Encodable, Sendable, Hashable {
        var lat: Double
        var lon: Double
        var heading: Int?
        var time: Instant

        init(_ p: TripPosition) {
            lat = p.coordinate.latitude
            lon = p.coordinate.longitude
            heading = p.headingDegrees
            time = p.time
        }
    }

    /// `event: redispatch` to a booking's followers: the driver is gone and SwiftCab looks for another one.
    struct Redispatch: Encodable, Sendable {
        var tripID: BookingID
        /// `driver_cancelled`, `pickup_overdue` or `dispatcher`.
        var reason: String

        enum CodingKeys: String, CodingKey {
            case reason
            case tripID = "trip_id"
        }
    }

    /// `event: dropoff_eta` during the ride: seconds by road from the driver to the drop-off.
    struct DropoffETA: Encodable, Sendable, Hashable {
        var tripID: BookingID
        var etaSeconds: Int

        enum CodingKeys: String, CodingKey {
            case tripID = "trip_id"
            case etaSeconds = "eta_s"
        }
    }

    /// `event: eta`: seconds by road from the driver to the pickup.
    struct ETA: Encodable, Sendable, Hashable {
        var etaSeconds: Int

        enum CodingKeys: String, CodingKey {
            case etaSeconds = "eta_s"
        }
    }
}

extension APIError.Code {
    /// A driver accepted or declined a trip they hold no open offer for (409).
    static let offerNotOpen = APIError.Code("offer_not_open")
    /// A driver holding an open trip tried to go offline (409).
    static let tripOpen = APIError.Code("trip_open")
    /// A driver who holds an open trip was given another one (accept or assign; 409).
    static let driverBusy = APIError.Code("driver_busy")
    /// `arrived` from farther than the configured distance of the pickup (409).
    static let tooFarFromPickup = APIError.Code("too_far_from_pickup")
    /// `arrived` without a recent fix of the driver (409).
    static let noRecentPosition = APIError.Code("no_recent_position")
    /// A rating with stars outside 1 to 5, or a comment too long (422).
    static let invalidRating = APIError.Code("invalid_rating")
}
