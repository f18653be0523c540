import CabCore
import CabDispatch
import Foundation
import Synchronization

/// A cluster node's clock, set by the shared database's (issue 18): every time a node stamps (a booking's
/// creation, a status change, an offer's expiry, the timeouts counted from them) is the database's time, so a
/// node whose own clock is off stamps no trip in the future or the past. Without it, a node 30 s ahead stamped
/// its bookings 30 s ahead, and their timeouts, counted by other nodes from those stamps, came 30 s late.
///
/// The offset is measured like NTP's: a read of the database's clock between two reads of this one, the
/// database taken to have answered halfway; of several reads, the one with the shortest round trip wins. The
/// offset moves only when a new measure differs by more than `toleranceMilliseconds`, so the clock does not
/// jitter back and forth by the round trip; until a first measure succeeds it is this node's own clock.
public final class DatabaseClock: Sendable {
    /// Reads the database's clock (`ShardLeaseRepository.databaseMilliseconds`).
    private let read: @Sendable () throws -> Int64
    /// This node's own clock, in milliseconds since the Unix epoch.
    private let local: @Sendable () -> Int64
    /// Added to this node's clock; nil before a first measure.
    private let offset = Mutex<Int64?>(nil)
    /// A new measure moves the offset only when it differs by more than this.
    public let toleranceMilliseconds: Int64
    private let stopped = Atomic<Bool>(false)

    /// A clock set by `read`; `local` is this node's own (the system clock unless a test gives another).
    public init(
        toleranceMilliseconds: Int64 = 20, read: @escaping @Sendable () throws -> Int64,
        local: @escaping @Sendable () -> Int64 = { Instant.now().millisecondsSinceEpoch }
    ) {
        self.toleranceMilliseconds = toleranceMilliseconds
        self.read = read
        self.local = local
    }

    /// The database's time now, as this node best knows it.
    public func now() -> Instant {
        Instant(millisecondsSinceEpoch: local() + (offset.withLock { $0 } ?? 0))
    }

    /// The offset in use (database minus this node), nil before a first measure.
    public var offsetMilliseconds: Int64? { offset.withLock { $0 } }

    /// Measures the offset with `reads` reads (the shortest round trip wins) and adopts it when it moved by more
    /// than the tolerance; false when no read succeeded (the offset stays).
    @discardableResult
    public func synchronize(reads: Int = 5) -> Bool {
        var best: (roundTrip: Int64, offset: Int64)?
        for _ in 0..<max(1, reads) {
            let sent = local()
            guard let database = try? read() else { continue }
            let received = local()
            let roundTrip = received - sent
            let measured = database - (sent + roundTrip / 2)
            if best.map({ roundTrip < $0.roundTrip }) ?? true { best = (roundTrip, measured) }
        }
        guard let best else { return false }
        offset.withLock { current in
            if let now = current, abs(best.offset - now) <= toleranceMilliseconds { return }
            current = best.offset
        }
        return true
    }

    /// Synchronizes every `everySeconds` on a thread of its own until `stop()`.
    public func keepSynchronized(everySeconds: Double = 10) {
        Thread.detachNewThread { [self] in
            while !stopped.load(ordering: .relaxed) {
                Thread.sleep(forTimeInterval: everySeconds)
                if !stopped.load(ordering: .relaxed) { synchronize() }
            }
        }
    }

    /// Ends `keepSynchronized`'s thread (at its next wake-up).
    public func stop() { stopped.store(true, ordering: .relaxed) }
}
