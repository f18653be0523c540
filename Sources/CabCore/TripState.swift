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

    /// The raw value.
    public var description: String { rawValue }
}
