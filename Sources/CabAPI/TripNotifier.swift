import CabCore
import CabDispatch
import CabHTTP

/// The SSE adapter of the trip notification bus: subscribes `EventStream`s (each driver's `/v1/driver/stream`,
/// each booking's rider and tracking-link streams) and names and encodes every `TripNotification` as the API's
/// event (docs/api.md, "Dispatch and trips"). Sending never blocks: every `EventStream` has a bounded queue that
/// drops its oldest.
enum TripNotifier {
    /// Sends `audience`'s notifications from `bus` to `stream` until it closes (or, for a trip, the trip ends).
    static func subscribe(_ stream: EventStream, to audience: TripAudience, on bus: any TripNotificationBus) {
        let receiver = EventStreamReceiver(stream)
        bus.subscribe(receiver, to: audience)
        stream.onClose { [weak receiver] in
            if let receiver { bus.unsubscribe(receiver, from: audience) }
        }
    }

    /// Follows `trip` into `stream` (`DispatchCoordinator.follow`: `snapshot` sends the state it starts from)
    /// until the stream closes or the trip ends; false when there is nothing to follow (the trip is over).
    static func follow(
        _ trip: BookingID, into stream: EventStream, on dispatch: DispatchCoordinator,
        snapshot: (Booking?) throws -> Void
    ) throws -> Bool {
        guard let follower = try dispatch.follow(trip, with: EventStreamReceiver(stream), snapshot: snapshot) else {
            return false
        }
        stream.onClose { [weak follower] in
            if let follower { dispatch.unfollow(follower, trip) }
        }
        return true
    }

    /// Sends one notification to `stream` now (the state a new follower starts from).
    static func send(_ notification: TripNotification, to stream: EventStream) {
        let (name, data) = event(for: notification)
        if case .status(_, _, _, let version) = notification, version > 0 {
            // The trip's version is the event's id: a stream opened again with it as `Last-Event-ID` resumes
            // from that version (`CabApplication.followingStream`).
            stream.send(event: name, id: String(version), data: data)
        } else {
            stream.send(event: name, data: data)
        }
    }

    /// The SSE event name and JSON data of `notification`.
    static func event(for notification: TripNotification) -> (name: String, data: String) {
        switch notification {
        case .offer(let o): ("offer", encode(TripEvents.Offer(o)))
        case .offerWithdrawn(let trip, let reason):
            (
                "cancelled",
                encode(TripEvents.Cancelled(tripID: trip, by: Role.system.rawValue, status: nil, reason: reason))
            )
        case .tripEnded(let trip, let by, let status):
            ("cancelled", encode(TripEvents.Cancelled(tripID: trip, by: by.rawValue, status: status, reason: nil)))
        case .tripTakenBack(let trip, let by, let reason):
            (
                "cancelled",
                encode(TripEvents.Cancelled(tripID: trip, by: by.rawValue, status: nil, reason: reason.rawValue))
            )
        case .assigned(let trip, let status): ("assigned", encode(TripEvents.Assigned(tripID: trip, status: status)))
        case .status(let trip, let status, let driver, let version):
            (
                "status",
                encode(
                    TripEvents.Status(
                        tripID: trip, status: status, driver: driver.map(TripEvents.DriverInfo.init), version: version))
            )
        case .driver(let driver): ("driver", encode(TripEvents.DriverEvent(driver: TripEvents.DriverInfo(driver))))
        case .redispatch(let trip, let reason):
            ("redispatch", encode(TripEvents.Redispatch(tripID: trip, reason: reason.rawValue)))
        case .position(let p): ("position", encode(TripEvents.Position(p)))
        case .pickupETA(let seconds): ("eta", encode(TripEvents.ETA(etaSeconds: seconds)))
        case .dropoffETA(let trip, let seconds):
            ("dropoff_eta", encode(TripEvents.DropoffETA(tripID: trip, etaSeconds: seconds)))
        case .alert(let alert): ("alert", encode(alert))
        case .declined(let trip, _):
            // A shard owner's notice on no stream's audience: to a driver it would read as their offer withdrawn.
            (
                "cancelled",
                encode(TripEvents.Cancelled(tripID: trip, by: Role.driver.rawValue, status: nil, reason: "declined"))
            )
        }
    }

    static func encode(_ value: some Encodable) -> String {
        do {
            return String(decoding: try JSONCoding.encoder.encode(value), as: UTF8.self)
        } catch {
            preconditionFailure("trip events are plain structs that always encode: \(error)")
        }
    }
}

/// One SSE stream as a receiver on the bus.
private final class EventStreamReceiver: TripNotificationReceiver {
    let stream: EventStream

    init(_ stream: EventStream) { self.stream = stream }

    func receive(_ notification: TripNotification) { TripNotifier.send(notification, to: stream) }

    func finish() { stream.finish() }
}
