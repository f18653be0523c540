/// Tracking links a rider shares (implemented by `CabStore`): durable, so a link keeps working across a restart
/// of the server for as long as its trip is open.
public protocol TrackingLinkRepository: Sendable {
    /// Stores `token` as a link to `booking`, made at `time`, durably.
    func createTrackingLink(_ token: String, for booking: BookingID, at time: Instant) throws
    /// The booking a link shows; nil for an unknown token.
    func trackingLinkBooking(_ token: String) throws -> BookingID?
}
