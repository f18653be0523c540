import CabGeo
import CabLoopback
import Synchronization

/// What the live trip simulation's riders and drivers share: each booking's PIN and end points (the simulator
/// plays both sides, so a driver knows the PIN the rider would tell), the trips cancelled under a driver, and
/// the counts the servers' answers cannot give (declines, failures).
package final class LiveTripBoard: Sendable {
    /// One booking as its rider made it.
    package struct Ticket: Sendable {
        package var riderToken: String
        package var pin: String
        package var pickup: Coordinate
        package var dropoff: Coordinate
    }

    private let tickets = Mutex<[String: Ticket]>([:])
    private let cancelled = Mutex<Set<String>>([])
    /// Offers declined by drivers.
    package let declines = Atomic<Int>(0)
    /// Set when the drivers should go offline and stop.
    package let stopped = Atomic<Bool>(false)
    /// API calls that failed unexpectedly (not a lost race).
    package let failures = Atomic<Int>(0)

    package func add(_ trip: String, _ ticket: Ticket) { tickets.withLock { $0[trip] = ticket } }
    package func ticket(_ trip: String) -> Ticket? { tickets.withLock { $0[trip] } }
    package var allTickets: [(trip: String, ticket: Ticket)] { tickets.withLock { $0.map { ($0.key, $0.value) } } }

    /// The server told the driver that `trip` ended (rider cancel, timeout).
    package func markCancelled(_ trip: String) { _ = cancelled.withLock { $0.insert(trip) } }
    package func isCancelled(_ trip: String) -> Bool { cancelled.withLock { $0.contains(trip) } }
}
