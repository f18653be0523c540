/// An event with its data, as given to `TripStateMachine.handle(_:by:at:)`.
public enum TripCommand: Hashable, Sendable {
    /// Dispatch starts (system).
    case dispatch
    /// The request expired before dispatch started (system, after `request_expiry`).
    case expire
    /// A dispatcher assigns `DriverID` by hand.
    case assign(DriverID)
    /// `DriverID` accepts the offer; the actor must be that driver.
    case accept(DriverID)
    /// Dispatch gave up (system).
    case noDriverFound
    /// The driver sets off.
    case depart
    /// The driver is at the pickup.
    case arrive
    /// The rider is on board; `code` is the booking's PIN or its QR payload (the booking id).
    case start(code: String)
    /// Dropped off after `distanceMeters` in `durationSeconds`, which set the final fare; `basis` says where the
    /// figures come from (the driven trail, or the booked route when there was no trail), `trailPolyline` is the
    /// driven trail for the receipt.
    case complete(distanceMeters: Int, durationSeconds: Int, basis: FareBasis = .trail, trailPolyline: String? = nil)
    /// The rider cancels, saying why.
    case riderCancel(reason: String)
    /// The driver cancels, saying why.
    case driverCancel(reason: String)
    /// The rider did not show up within the wait.
    case noShow
    /// The trip goes back to dispatch without its driver, for `reason`.
    case redispatch(reason: RedispatchReason)

    /// The event this command causes.
    public var event: TripEvent {
        switch self {
        case .dispatch: .dispatch
        case .expire: .expire
        case .assign: .assign
        case .accept: .accept
        case .noDriverFound: .noDriverFound
        case .depart: .depart
        case .arrive: .arrive
        case .start: .start
        case .complete: .complete
        case .riderCancel: .riderCancel
        case .driverCancel: .driverCancel
        case .noShow: .noShow
        case .redispatch: .redispatch
        }
    }
}

/// Why a trip went back to dispatch (`redispatch`); snake case in JSON.
public enum RedispatchReason: String, Hashable, Sendable, Codable, CaseIterable {
    /// The driver cancelled after accepting.
    case driverCancelled = "driver_cancelled"
    /// The driver had not arrived by the promised pickup time plus the margin (`TripTimeouts`).
    case pickupOverdue = "pickup_overdue"
    /// A dispatcher sent it back.
    case dispatcher
}

/// What the owner of a trip must do after a transition (the machine itself does no I/O).
public enum TripAction: Hashable, Sendable {
    /// Tell the rider the new state.
    case notifyRider(TripState)
    /// Tell this driver the new state.
    case notifyDriver(DriverID, TripState)
    /// The trip was taken from `from` for `reason`: tell that driver and the rider, and dispatch again without
    /// offering it to `from`.
    case redispatch(from: DriverID, reason: RedispatchReason)
    /// Start offering the trip to drivers.
    case startDispatch
    /// The driver is free for other offers.
    case releaseDriver(DriverID)
    /// Charge the rider this amount (a cancellation or no-show fee, or the final fare).
    case chargeRider(Money)
    /// Tracking links of this trip stop working, and everyone following the trip is told it is over.
    case endTrackingLinks
    /// Dispatch of this trip is over: open offers are withdrawn, as taken when `acceptedBy` has it, else as
    /// cancelled (nothing to do for a trip dispatch never started).
    case endDispatch(acceptedBy: DriverID?)
    /// Follow this driver for the rider (position, road ETA, arrival alerts) and count them busy.
    case followDriver(DriverID)
    /// Stop following the trip's driver.
    case stopFollowing
    /// The driver is at the pickup: send the rider the arrival alert.
    case announceArrival
}

/// One stored transition: the row of the booking's status history.
public struct TripTransitionRecord: Hashable, Sendable, Codable {
    /// The booking.
    public var bookingID: BookingID
    /// The state left; nil for the creation (`book`).
    public var from: TripState?
    /// The state entered.
    public var to: TripState
    /// What caused it.
    public var event: TripEvent
    /// Who caused it.
    public var actor: Principal
    /// When.
    public var at: Instant
    /// Why, when given (cancellations, no-shows).
    public var reason: String?

    /// Creates a record.
    public init(
        bookingID: BookingID, from: TripState?, to: TripState, event: TripEvent, actor: Principal, at: Instant,
        reason: String? = nil
    ) {
        self.bookingID = bookingID
        self.from = from
        self.to = to
        self.event = event
        self.actor = actor
        self.at = at
        self.reason = reason
    }

    enum CodingKeys: String, CodingKey {
        case from, to, event, actor, at, reason
        case bookingID = "booking_id"
    }
}

/// The result of handling a command: the transition to store (nil when nothing changed) and the actions.
public struct TripStep: Hashable, Sendable {
    /// The transition to store with a compare-and-set on `from`; nil for a harmless repeat (a second cancel).
    public var record: TripTransitionRecord?
    /// What the owner must do once the transition is stored.
    public var actions: [TripAction]
}
