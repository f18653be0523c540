import CabCore

/// Where the booking endpoints meet dispatch and tracking, which plug in here (`Services.bookingHooks`) instead
/// of being called by name: the booking endpoints work alone, and gain offers and notifications when wired.
public struct BookingHooks: Sendable {
    /// True while `BookingID` is offered to `DriverID` (such a driver may read the booking). Default: never.
    public var isOffered: @Sendable (BookingID, DriverID) -> Bool
    /// Called once a new booking is durable (not for an idempotent retry).
    public var bookingCreated: @Sendable (Booking) -> Void
    /// Called once a transition made through the booking endpoints (a rider's cancel) is durable, with the
    /// stored booking and the actions the owner must perform (notify and release the driver, end tracking links).
    public var bookingChanged: @Sendable (Booking, TripStep) -> Void
    /// Runs a transition of `BookingID` (its store write and `bookingChanged`) so that it is ordered with the
    /// owner's own transitions of the same trip. Default: runs it.
    public var serializingTrip: @Sendable (BookingID, () -> Void) -> Void

    /// Hooks that do nothing.
    public init(
        isOffered: @escaping @Sendable (BookingID, DriverID) -> Bool = { _, _ in false },
        bookingCreated: @escaping @Sendable (Booking) -> Void = { _ in },
        bookingChanged: @escaping @Sendable (Booking, TripStep) -> Void = { _, _ in },
        serializingTrip: @escaping @Sendable (BookingID, () -> Void) -> Void = { $1() }
    ) {
        self.isOffered = isOffered
        self.bookingCreated = bookingCreated
        self.bookingChanged = bookingChanged
        self.serializingTrip = serializingTrip
    }
}
