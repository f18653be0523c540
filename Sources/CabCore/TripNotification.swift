import CabGeo

/// What the application tells the apps about trips, as typed values: the bus (`TripNotificationBus`) carries
/// them, and an adapter at the edge names and encodes them for its wire (`CabAPI` writes SSE events).
public enum TripNotification: Hashable, Sendable {
    /// To a driver: the offer of a trip, open until `offer.expiresAt`.
    case offer(TripOffer)
    /// To a driver: an offer taken back (`reason`: `taken`, `expired`, `cancelled`) by the system.
    case offerWithdrawn(BookingID, reason: String)
    /// To a driver: their trip ended (`status`, a terminal state) by `by`.
    case tripEnded(BookingID, by: Role, status: TripState)
    /// To a driver: their trip was taken back by `by` and dispatched again (`reason`).
    case tripTakenBack(BookingID, by: Role, reason: RedispatchReason)
    /// To a driver: the trip is theirs now (accepted, or assigned by a dispatcher), in `status`.
    case assigned(BookingID, status: TripState)
    /// To a trip's followers: its status, with its driver when it has one, at the trip's `version`
    /// (`Booking.version`): a follower ignores a status whose version is not newer than the one it has.
    case status(BookingID, TripState, driver: Driver?, version: Int)
    /// To a trip's followers: the driver who took it.
    case driver(Driver)
    /// To a trip's followers: the driver is gone and dispatch looks for another one (`reason`).
    case redispatch(BookingID, reason: RedispatchReason)
    /// To a trip's followers: the driver's latest position (sent as each new fix arrives; one a fix).
    case position(TripPosition)
    /// To a trip's followers: seconds by road from the driver to the pickup.
    case pickupETA(seconds: Int)
    /// To a trip's followers: during the ride, seconds by road from the driver to the drop-off.
    case dropoffETA(BookingID, seconds: Int)
    /// To a trip's followers: an arrival alert.
    case alert(ArrivalAlert)
    /// To a trip's dispatch shard (`TripAudience.shard`): `driver` declined its offer on a node that does not
    /// dispatch it, so the shard's owner moves the batch on at once (issue 18). Never sent to a stream.
    case declined(BookingID, by: DriverID)
}

/// An offer of a trip to one driver.
public struct TripOffer: Hashable, Sendable {
    /// The trip.
    public var tripID: BookingID
    /// Where the rider waits.
    public var pickup: Coordinate
    /// Where the ride goes.
    public var dropoff: Coordinate
    /// The pickup's name, if the rider gave one.
    public var pickupName: String?
    /// The drop-off's name.
    public var dropoffName: String?
    /// Seconds by road from the driver to the pickup.
    public var etaSeconds: Int
    /// When the offer lapses.
    public var expiresAt: Instant

    /// Creates an offer.
    public init(
        tripID: BookingID, pickup: Coordinate, dropoff: Coordinate, pickupName: String?, dropoffName: String?,
        etaSeconds: Int, expiresAt: Instant
    ) {
        self.tripID = tripID
        self.pickup = pickup
        self.dropoff = dropoff
        self.pickupName = pickupName
        self.dropoffName = dropoffName
        self.etaSeconds = etaSeconds
        self.expiresAt = expiresAt
    }
}

/// A driver's position as a trip's followers see it.
public struct TripPosition: Hashable, Sendable {
    /// Where.
    public var coordinate: Coordinate
    /// Heading, whole degrees clockwise from north, if known.
    public var headingDegrees: Int?
    /// When the fix was taken.
    public var time: Instant

    /// Creates a position.
    public init(coordinate: Coordinate, headingDegrees: Int?, time: Instant) {
        self.coordinate = coordinate
        self.headingDegrees = headingDegrees
        self.time = time
    }
}

/// Who hears a notification: one driver's apps, or everyone following one trip (the rider, tracking links).
public enum TripAudience: Hashable, Sendable {
    /// Every open stream of this driver.
    case driver(DriverID)
    /// Every follower of this trip.
    case trip(BookingID)
    /// The owner of a dispatch shard (issue 18): every status published to a trip of the shard reaches it too,
    /// from any node, so the node dispatching the shard hears each of its trips' changes.
    case shard(DispatchShard)
}

/// One receiver of notifications (an SSE stream at the edge). Delivery must not block: a slow receiver drops.
public protocol TripNotificationReceiver: AnyObject, Sendable {
    /// Takes one notification.
    func receive(_ notification: TripNotification)
    /// The trip is over: send what is queued, then end.
    func finish()
}

/// The bus for trip notifications (a port): the application publishes, adapters subscribe receivers. The
/// in-process bus (`CabDispatch.InProcessTripBus`) implements it for one server; several nodes would share one.
public protocol TripNotificationBus: Sendable {
    /// Delivers `notification` to every receiver of `audience`.
    func publish(_ notification: TripNotification, to audience: TripAudience)
    /// Ends every receiver following `trip` (its trip is over) and forgets them.
    func finish(trip: BookingID)
    /// Delivers `audience`'s notifications to `receiver` until `unsubscribe`.
    func subscribe(_ receiver: any TripNotificationReceiver, to audience: TripAudience)
    /// Stops delivering to `receiver`.
    func unsubscribe(_ receiver: any TripNotificationReceiver, from audience: TripAudience)
    /// The offer this bus last carried to `driver` that is still open at `time` (not withdrawn, taken or
    /// lapsed), when the bus keeps them: a cluster's bus does, so that a driver's stream on any node re-sends the
    /// offer another node made. nil by default.
    func openOffer(for driver: DriverID, at time: Instant) -> TripOffer?
    /// Claims `driver` for `offer` across the nodes before it is sent (a driver holds one open offer at a time,
    /// whichever node made it): false when another node's offer to the driver is still open. A bus inside one
    /// process claims nothing (the coordinator's own bookkeeping holds one offer per driver).
    func claimOffer(_ offer: TripOffer, for driver: DriverID) -> Bool
    /// True when notifications published on other nodes reach this bus's receivers too (a cluster's bus): a trip
    /// dispatched here may then change on another node, and the coordinator listens for that.
    var spansNodes: Bool { get }
}

extension TripNotificationBus {
    /// A bus inside one process keeps no offers: the coordinator that made them knows them.
    public func openOffer(for driver: DriverID, at time: Instant) -> TripOffer? { nil }
    /// A bus inside one process: only this node's notifications.
    public var spansNodes: Bool { false }
    /// A bus inside one process: nothing to claim across nodes.
    public func claimOffer(_ offer: TripOffer, for driver: DriverID) -> Bool { true }
}
