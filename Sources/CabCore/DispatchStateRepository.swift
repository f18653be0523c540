/// What dispatch keeps across a restart (implemented by `CabStore`): the drivers who declined a trip, and the
/// trips left open, which start-up recovery reads.
public protocol DispatchStateRepository: Sendable {
    /// Records durably that `driver` declined `booking` at `time` (a repeat is harmless).
    func recordDecline(of booking: BookingID, by driver: DriverID, at time: Instant) throws
    /// The drivers who declined `booking` (or handed it back), so dispatch never asks them again.
    func declines(of booking: BookingID) throws -> Set<DriverID>
    /// Every booking not in a terminal state, oldest first (start-up recovery reads them all, unpaged).
    func openTrips() throws -> [Booking]
}
