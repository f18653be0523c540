extension CoreError.Code {
    /// A currency code is not in the ISO 4217 list.
    public static let unknownCurrency = Self("unknown_currency")
    /// A tariff file or value breaks a rule (negative amount, unknown field, ...).
    public static let invalidTariff = Self("invalid_tariff")
    /// The event is not allowed in the booking's current state (the API answers 409).
    public static let illegalTransition = Self("illegal_transition")
    /// The booking changed between reading and writing (a compare-and-set lost); re-read and retry (or 409).
    public static let transitionConflict = Self("transition_conflict")
    /// The actor's role may not make this transition, or it is not their trip.
    public static let notPermitted = Self("not_permitted")
    /// The rider's code (PIN or QR payload) given to start the trip is wrong.
    public static let wrongCode = Self("wrong_code")
    /// The transition is allowed, but not yet (e.g. a no-show before the wait is over).
    public static let tooEarly = Self("too_early")
    /// An idempotency key was reused with a different request body.
    public static let idempotencyConflict = Self("idempotency_conflict")
    /// The booking or account does not exist.
    public static let notFound = Self("not_found")
    /// A value given to the domain is out of range (negative distance, empty name, ...).
    public static let invalidValue = Self("invalid_value")
    /// The booking was rated already (a trip is rated once).
    public static let alreadyRated = Self("already_rated")
    /// The booking is not completed, so it cannot be rated yet.
    public static let notCompleted = Self("not_completed")
}

/// Why a trip event was refused, attached as `CoreError.underlying` so the API can name the current state.
public struct TripRefusal: Error, Sendable, Equatable {
    /// The booking's state when the event arrived.
    public var currentState: TripState
    /// The refused event.
    public var event: TripEvent

    /// Creates a refusal.
    public init(currentState: TripState, event: TripEvent) {
        self.currentState = currentState
        self.event = event
    }
}

extension CoreError {
    /// The state named by an `illegalTransition` or `transitionConflict` error, if any.
    public var currentTripState: TripState? { (underlying as? TripRefusal)?.currentState }

    /// An illegal transition: the detail says in words for people where the trip stands (never a state's name);
    /// the state itself travels in `currentTripState` (the API sends it as `current_state`).
    public static func illegalTransition(_ event: TripEvent, in state: TripState) -> CoreError {
        let message: String
        switch (event, state) {
        case (.riderCancel, .inProgress):
            message =
                "Your ride has already started, so it can't be cancelled. If you want to stop early, ask your driver "
                + "to end the trip where it is safe; you pay only for the distance driven."
        case (.riderCancel, _) where state.isTerminal, (.driverCancel, _) where state.isTerminal:
            message = "This trip can no longer be cancelled: \(state.situation)."
        case (.arrive, .inProgress), (.arrive, .arrived):
            message = "You have already arrived at the pickup; start the trip with the rider's code."
        case (.start, .accepted), (.start, .arriving):
            message = "Mark your arrival at the pickup first; then start the trip with the rider's code."
        case (.complete, .accepted), (.complete, .arriving), (.complete, .arrived):
            message = "The ride has not started yet; start it with the rider's code before completing it."
        case (.accept, _), (.assign, _):
            message = "This trip can't take a driver now: \(state.situation)."
        default:
            message = "You can't \(event.verb) this trip now: \(state.situation)."
        }
        return CoreError(.illegalTransition, message, underlying: TripRefusal(currentState: state, event: event))
    }
}
extension CoreError.Code {
    /// A driver accepted or declined a trip they hold no open offer for (the API answers 409).
    public static let offerNotOpen = Self("offer_not_open")
    /// A driver holding an open trip tried to go offline (409).
    public static let tripOpen = Self("trip_open")
    /// A driver who holds an open trip was given another one (accept or assign; 409).
    public static let driverBusy = Self("driver_busy")
    /// `arrived` from farther than the configured distance of the pickup (409).
    public static let tooFarFromPickup = Self("too_far_from_pickup")
    /// `arrived` without a recent fix of the driver (409).
    public static let noRecentPosition = Self("no_recent_position")
}
