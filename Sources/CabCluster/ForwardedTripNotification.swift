import CabCore
import CabGeo
import Foundation

/// A trip notification as nodes exchange it (`cab:{city}:trip-events`, JSON): what one node's dispatch tells a
/// trip's followers or a driver reaches their streams on every other node.
struct ForwardedTripNotification: Codable, Equatable {
    /// `trip`, `driver` or `shard`.
    var audienceKind: String
    /// The trip's or the driver's id.
    var audienceID: String
    /// The notification: `offer`, `offer_withdrawn`, `trip_ended`, `trip_taken_back`, `assigned`, `status`,
    /// `driver`, `redispatch`, `position`, `pickup_eta`, `dropoff_eta`, `alert`, `declined` (to a shard), or
    /// `finish` (the trip is over: its followers' streams end).
    var kind: String
    var trip: String?
    var state: TripState?
    var driver: Driver?
    var role: Role?
    var reason: String?
    var latitude: Double?
    var longitude: Double?
    var heading: Int?
    var timeMilliseconds: Int64?
    var seconds: Int?
    var alert: ArrivalAlert?
    var offer: String?
    /// A status's trip version (`Booking.version`).
    var version: Int?
    /// Who declined (`declined`).
    var driverID: String?

    enum CodingKeys: String, CodingKey {
        case audienceKind = "a", audienceID = "to", kind = "k", trip, state, driver, role, reason
        case latitude = "lat", longitude = "lon", heading, timeMilliseconds = "time_ms", seconds, alert, offer
        case version = "v", driverID = "driver_id"
    }

    init(audience: TripAudience, kind: String) {
        switch audience {
        case .trip(let id): (audienceKind, audienceID) = ("trip", id.rawValue)
        case .driver(let id): (audienceKind, audienceID) = ("driver", id.rawValue)
        case .shard(let shard): (audienceKind, audienceID) = ("shard", String(shard.index))
        }
        self.kind = kind
    }

    /// The forwarded form of `notification` to `audience`.
    init(_ notification: TripNotification, to audience: TripAudience) {
        switch notification {
        case .offer(let o):
            self.init(audience: audience, kind: "offer")
            offer = o.json
        case .offerWithdrawn(let trip, let reason):
            self.init(audience: audience, kind: "offer_withdrawn")
            self.trip = trip.rawValue
            self.reason = reason
        case .tripEnded(let trip, let by, let status):
            self.init(audience: audience, kind: "trip_ended")
            (self.trip, role, state) = (trip.rawValue, by, status)
        case .tripTakenBack(let trip, let by, let reason):
            self.init(audience: audience, kind: "trip_taken_back")
            (self.trip, role, self.reason) = (trip.rawValue, by, reason.rawValue)
        case .assigned(let trip, let status):
            self.init(audience: audience, kind: "assigned")
            (self.trip, state) = (trip.rawValue, status)
        case .status(let trip, let status, let driver, let version):
            self.init(audience: audience, kind: "status")
            (self.trip, state, self.driver, self.version) = (trip.rawValue, status, driver, version)
        case .driver(let driver):
            self.init(audience: audience, kind: "driver")
            self.driver = driver
        case .redispatch(let trip, let reason):
            self.init(audience: audience, kind: "redispatch")
            (self.trip, self.reason) = (trip.rawValue, reason.rawValue)
        case .position(let p):
            self.init(audience: audience, kind: "position")
            (latitude, longitude, heading) = (p.coordinate.latitude, p.coordinate.longitude, p.headingDegrees)
            timeMilliseconds = p.time.millisecondsSinceEpoch
        case .pickupETA(let seconds):
            self.init(audience: audience, kind: "pickup_eta")
            self.seconds = seconds
        case .dropoffETA(let trip, let seconds):
            self.init(audience: audience, kind: "dropoff_eta")
            (self.trip, self.seconds) = (trip.rawValue, seconds)
        case .alert(let alert):
            self.init(audience: audience, kind: "alert")
            self.alert = alert
        case .declined(let trip, let driver):
            self.init(audience: audience, kind: "declined")
            (self.trip, driverID) = (trip.rawValue, driver.rawValue)
        }
    }

    /// The audience; nil when the id is not one.
    var audience: TripAudience? {
        switch audienceKind {
        case "trip": BookingID(audienceID).map { .trip($0) }
        case "driver": DriverID(audienceID).map { .driver($0) }
        case "shard":
            Int(audienceID).flatMap { (0..<DispatchShard.count).contains($0) ? .shard(DispatchShard($0)) : nil }
        default: nil
        }
    }

    /// The notification; nil for `finish` and for anything malformed (from another version: skipped).
    var notification: TripNotification? {
        let trip = self.trip.flatMap { BookingID($0) }
        switch kind {
        case "offer": return offer.flatMap { TripOffer(json: $0) }.map { .offer($0) }
        case "offer_withdrawn":
            guard let trip, let reason else { return nil }
            return .offerWithdrawn(trip, reason: reason)
        case "trip_ended":
            guard let trip, let role, let state else { return nil }
            return .tripEnded(trip, by: role, status: state)
        case "trip_taken_back":
            guard let trip, let role, let reason = reason.flatMap(RedispatchReason.init(rawValue:)) else { return nil }
            return .tripTakenBack(trip, by: role, reason: reason)
        case "assigned":
            guard let trip, let state else { return nil }
            return .assigned(trip, status: state)
        case "status":
            guard let trip, let state else { return nil }
            return .status(trip, state, driver: driver, version: version ?? 0)  // 0: unversioned, always applied
        case "driver": return driver.map { .driver($0) }
        case "redispatch":
            guard let trip, let reason = reason.flatMap(RedispatchReason.init(rawValue:)) else { return nil }
            return .redispatch(trip, reason: reason)
        case "position":
            guard let latitude, let longitude, let timeMilliseconds else { return nil }
            return .position(
                TripPosition(
                    coordinate: Coordinate(latitude: latitude, longitude: longitude), headingDegrees: heading,
                    time: Instant(millisecondsSinceEpoch: timeMilliseconds)))
        case "pickup_eta": return seconds.map { .pickupETA(seconds: $0) }
        case "dropoff_eta":
            guard let trip, let seconds else { return nil }
            return .dropoffETA(trip, seconds: seconds)
        case "alert": return alert.map { .alert($0) }
        case "declined":
            guard let trip, let driver = driverID.flatMap({ DriverID($0) }) else { return nil }
            return .declined(trip, by: driver)
        default: return nil
        }
    }
}
