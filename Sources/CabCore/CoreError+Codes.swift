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

    /// An illegal transition naming the current state.
    public static func illegalTransition(_ event: TripEvent, in state: TripState) -> CoreError {
        let why =
            state.isTerminal
            ? "the booking is already \(state.rawValue) and can no longer change"
            : "allowed from: \(TripTransitionTable.standard.states(accepting: event).map(\.rawValue).joined(separator: ", "))"
        return CoreError(
            .illegalTransition, "Cannot \(event.rawValue) a booking that is \(state.rawValue): \(why).",
            underlying: TripRefusal(currentState: state, event: event))
    }
}
