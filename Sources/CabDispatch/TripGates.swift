import CabCore
import Foundation

/// Striped locks keyed by trip: a transition's store write and the notifications that follow it run under its
/// trip's gate, so two racing transitions of one trip (a driver's accept and a rider's cancel) tell both apps in
/// the order the store applied them. Different trips rarely share a stripe; a gate is never taken while another
/// is held.
final class TripGates: Sendable {
    // NSLock is thread-safe (`@unchecked Sendable` in Foundation); the array never changes after init.
    private let locks: [NSLock]

    /// `stripes` locks.
    init(stripes: Int = 64) {
        precondition(stripes > 0, "at least one stripe")
        locks = (0..<stripes).map { _ in NSLock() }
    }

    /// Runs `body` holding `trip`'s gate.
    func withGate<T>(_ trip: BookingID, _ body: () throws -> T) rethrows -> T {
        var hasher = Hasher()
        hasher.combine(trip)
        let lock = locks[Int(UInt(bitPattern: hasher.finalize()) % UInt(locks.count))]
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }
}
