import CabCore
import Synchronization

/// A new follower of one trip (a rider's or a tracking link's stream) on the bus, between its receiver and the
/// bus: subscribed before the trip is read, it holds what arrives until the stream has sent the trip as read
/// (`open(after:)`), then passes everything on in order, a status only when it is newer than the version the
/// stream has. So a transition racing the new stream is neither lost (announced between the read and the
/// subscription) nor shown after an older snapshot, on this node or arriving late from another one.
public final class TripFollower: TripNotificationReceiver {
    private struct State {
        /// What arrived before `open`; nil once open.
        var held: [TripNotification]? = []
        /// The newest trip version the receiver has.
        var version = 0
        /// `finish()` came while holding.
        var finished = false
    }

    /// Most notifications held between the subscription and the snapshot (a trip announces a few per
    /// transition; this bound only matters for a stream that never opens).
    static let maximumHeld = 256

    private let receiver: any TripNotificationReceiver
    private let state = Mutex(State())

    /// A follower passing on to `receiver`, holding until `open(after:)`.
    public init(_ receiver: any TripNotificationReceiver) { self.receiver = receiver }

    public func receive(_ notification: TripNotification) {
        // Passed on under the lock, so two publishers' notifications reach the receiver in one order (a receiver
        // never blocks: an SSE stream's queue drops its oldest).
        state.withLock { s in
            if s.held != nil {
                if s.held!.count < Self.maximumHeld { s.held!.append(notification) }
            } else if Self.isNew(notification, after: &s.version) {
                receiver.receive(notification)
            }
        }
    }

    public func finish() {
        let now = state.withLock { s in
            if s.held != nil { s.finished = true }
            return s.held == nil
        }
        if now { receiver.finish() }
    }

    /// The receiver has the trip at `version`: passes on what was held that is newer, and from now on everything
    /// as it comes.
    public func open(after version: Int) {
        let finished = state.withLock { s in
            s.version = version
            for n in s.held ?? [] where Self.isNew(n, after: &s.version) { receiver.receive(n) }
            s.held = nil
            return s.finished
        }
        if finished { receiver.finish() }
    }

    /// False for a status whose version is not newer than `version` (which it raises otherwise); true for every
    /// other notification and for an unversioned status (version 0: a node that does not send one).
    private static func isNew(_ notification: TripNotification, after version: inout Int) -> Bool {
        guard case .status(_, _, _, let v) = notification, v > 0 else { return true }
        guard v > version else { return false }
        version = v
        return true
    }
}
