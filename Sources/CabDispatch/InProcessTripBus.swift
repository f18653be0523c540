import CabCore
import Synchronization

/// `TripNotificationBus` inside one process: receivers by audience under one lock; publishing hands each
/// notification to the receivers of its audience on the caller's thread (receivers never block: an SSE stream
/// has a bounded queue that drops its oldest).
public final class InProcessTripBus: TripNotificationBus {
    private struct State {
        var receivers: [TripAudience: [ObjectIdentifier: any TripNotificationReceiver]] = [:]
    }

    private let state = Mutex(State())

    /// An empty bus.
    public init() {}

    /// A trip's statuses reach its dispatch shard's audience too (`TripAudience.shard`): the shard's owner hears
    /// every change of its trips, wherever it was made.
    public func publish(_ notification: TripNotification, to audience: TripAudience) {
        var shard: TripAudience?
        if case .status(let trip, _, _, _) = notification, case .trip = audience {
            shard = .shard(DispatchShard(of: trip))
        }
        let receivers = state.withLock { s in
            Array((s.receivers[audience] ?? [:]).values)
                + (shard.flatMap { s.receivers[$0].map { Array($0.values) } } ?? [])
        }
        for r in receivers { r.receive(notification) }
    }

    public func finish(trip: BookingID) {
        let receivers = state.withLock { $0.receivers.removeValue(forKey: .trip(trip)).map { Array($0.values) } ?? [] }
        for r in receivers { r.finish() }
    }

    public func subscribe(_ receiver: any TripNotificationReceiver, to audience: TripAudience) {
        state.withLock { $0.receivers[audience, default: [:]][ObjectIdentifier(receiver)] = receiver }
    }

    public func unsubscribe(_ receiver: any TripNotificationReceiver, from audience: TripAudience) {
        state.withLock { s in
            s.receivers[audience]?[ObjectIdentifier(receiver)] = nil
            if s.receivers[audience]?.isEmpty == true { s.receivers[audience] = nil }
        }
    }

    /// How many receivers `audience` has (tests).
    public func receiverCount(of audience: TripAudience) -> Int {
        state.withLock { $0.receivers[audience]?.count ?? 0 }
    }
}
