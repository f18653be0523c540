import CabCore

/// Where the booking endpoints meet dispatch and tracking, which plug in here (`Services.bookingHooks`) instead
/// of being called by name: the booking endpoints work alone, and gain offers and notifications when wired.
public struct BookingHooks: Sendable {
    /// True while `BookingID` is offered to `DriverID` (such a driver may read the booking). Default: never.
    public var isOffered: @Sendable (BookingID, DriverID) -> Bool
    /// Decides, before a new booking is stored, the steps it takes at once in the same transaction (dispatch
    /// moves it straight to `dispatching`, so the row is written once). Default: none; it is stored in `requested`.
    public var admit: @Sendable (Booking) -> BookingAdmission
    /// Called once a new booking stored in `requested` is durable (not for an idempotent retry).
    public var bookingCreated: @Sendable (Booking) -> Void
    /// Called once a booking stored with an admission's step is durable (not for an idempotent retry), with the
    /// stored booking and the step whose actions the owner performs.
    public var bookingAdmitted: @Sendable (Booking, TripStep) -> Void
    /// Called once a transition made through the booking endpoints (a rider's cancel) is durable, with the
    /// stored booking and the actions the owner must perform (notify and release the driver, end tracking links).
    public var bookingChanged: @Sendable (Booking, TripStep) -> Void
    /// Runs a transition of `BookingID` (its store write and `bookingChanged`) so that it is ordered with the
    /// owner's own transitions of the same trip. Default: runs it.
    public var serializingTrip: @Sendable (BookingID, () -> Void) -> Void

    /// Hooks that do nothing.
    public init(
        isOffered: @escaping @Sendable (BookingID, DriverID) -> Bool = { _, _ in false },
        admit: @escaping @Sendable (Booking) -> BookingAdmission = { BookingAdmission(booking: $0) },
        bookingCreated: @escaping @Sendable (Booking) -> Void = { _ in },
        bookingAdmitted: @escaping @Sendable (Booking, TripStep) -> Void = { _, _ in },
        bookingChanged: @escaping @Sendable (Booking, TripStep) -> Void = { _, _ in },
        serializingTrip: @escaping @Sendable (BookingID, () -> Void) -> Void = { $1() }
    ) {
        self.isOffered = isOffered
        self.admit = admit
        self.bookingCreated = bookingCreated
        self.bookingAdmitted = bookingAdmitted
        self.bookingChanged = bookingChanged
        self.serializingTrip = serializingTrip
    }
}

/// What a new booking becomes as it is stored (`BookingHooks.admit`).
public struct BookingAdmission: Sendable {
    /// The booking as stored: the new booking, or the state `step` leaves it in.
    public var booking: Booking
    /// The step taken at once from `requested`, stored in the booking's own transaction; nil for none.
    public var step: TripStep?

    /// `booking` as it is, stored in `requested`.
    public init(booking: Booking) {
        self.booking = booking
        step = nil
    }

    /// `booking` after `step` (whose record must lead from `requested` to `booking.status`).
    public init(booking: Booking, step: TripStep) {
        precondition(step.record?.from == .requested && step.record?.to == booking.status, "an admission starts in requested")
        self.booking = booking
        self.step = step
    }

    /// The history rows stored after `book`.
    package var transitions: [TripTransitionRecord] { step?.record.map { [$0] } ?? [] }
}
