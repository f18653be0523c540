/// Where a booking is in its life. Serialised in snake case (`in_progress`), as stored and served.
public enum TripState: String, Hashable, Sendable, Codable, CaseIterable, CustomStringConvertible {
    /// Booked, dispatch not started yet.
    case requested
    /// Offers are out to drivers.
    case dispatching
    /// A driver took the trip.
    case accepted
    /// The driver is on the way to the pickup.
    case arriving
    /// The driver is at the pickup.
    case arrived
    /// The rider is on board.
    case inProgress = "in_progress"
    /// Dropped off; the final fare is set.
    case completed
    /// The rider (or a dispatcher for them) cancelled.
    case cancelledByRider = "cancelled_by_rider"
    /// The driver (or a dispatcher for them) cancelled, or the rider did not show up.
    case cancelledByDriver = "cancelled_by_driver"
    /// Every batch of offers went unanswered or was declined.
    case noDriverFound = "no_driver_found"
    /// Dispatch never started in time.
    case expired

    /// True when nothing can happen any more.
    public var isTerminal: Bool {
        switch self {
        case .completed, .cancelledByRider, .cancelledByDriver, .noDriverFound, .expired: true
        default: false
        }
    }

    /// True for the two cancelled states.
    public var isCancelled: Bool { self == .cancelledByRider || self == .cancelledByDriver }

    /// The raw value.
    public var description: String { rawValue }

    /// Where the trip stands, in words for the people in it (never the state's name): "the ride has already
    /// started". Problem details are built from it.
    public var situation: String {
        switch self {
        case .requested: "the trip is still waiting for dispatch to start"
        case .dispatching: "SwiftCab is still looking for a driver"
        case .accepted: "a driver has already taken this trip"
        case .arriving: "the driver is already on the way to the pickup"
        case .arrived: "the driver is already waiting at the pickup"
        case .inProgress: "the ride has already started"
        case .completed: "the ride is already over"
        case .cancelledByRider: "the trip was cancelled by the rider"
        case .cancelledByDriver: "the trip was cancelled on the driver's side"
        case .noDriverFound: "no driver was found for this trip"
        case .expired: "this trip expired before a driver was found"
        }
    }
}

/// What can happen to a booking: the events of the transition table (snake case in JSON).
public enum TripEvent: String, Hashable, Sendable, Codable, CaseIterable, CustomStringConvertible {
    /// The booking was created (history only: it has no `from` state and no row in the table).
    case book
    /// Dispatch starts looking for a driver.
    case dispatch
    /// Dispatch did not start before the request expiry.
    case expire
    /// A dispatcher assigns a driver by hand.
    case assign
    /// A driver accepts an offer.
    case accept
    /// The last batch of offers ran out, or the dispatch deadline passed.
    case noDriverFound = "no_driver_found"
    /// The driver sets off to the pickup.
    case depart
    /// The driver reached the pickup.
    case arrive
    /// The rider is on board (the driver gives the rider's PIN or QR payload).
    case start
    /// The rider was dropped off.
    case complete
    /// The rider cancels.
    case riderCancel = "rider_cancel"
    /// The driver cancels.
    case driverCancel = "driver_cancel"
    /// The rider did not come within the wait at the pickup.
    case noShow = "no_show"
    /// The trip goes back to dispatch without its driver (the driver cancelled, the pickup is overdue, or a
    /// dispatcher sent it back); `RedispatchReason` says which.
    case redispatch

    /// What the event does, in words for people: "cancel", "accept".
    public var verb: String {
        switch self {
        case .book: "book"
        case .dispatch: "dispatch"
        case .expire: "expire"
        case .assign: "assign a driver to"
        case .accept: "accept"
        case .noDriverFound: "give up on"
        case .depart: "set off for"
        case .arrive: "mark arrival for"
        case .start: "start"
        case .complete: "complete"
        case .riderCancel, .driverCancel: "cancel"
        case .noShow: "report a no-show for"
        case .redispatch: "hand back"
        }
    }

    /// The raw value.
    public var description: String { rawValue }
}
