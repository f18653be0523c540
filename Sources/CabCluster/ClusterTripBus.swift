import CabCore
import CabDispatch
import CabGeo
import CabRedis
import Dispatch
import Foundation
import Synchronization

/// A `TripNotificationBus` for a cluster node: delivers in this process as `InProcessTripBus` does, forwards every
/// notification to the other nodes (`cab:{city}:trip-events`, a stream every node follows: a rider's stream on C
/// hears what A's dispatch tells the trip, a driver's stream on B an offer A made), and keeps each driver's open
/// offer in Redis (`cab:{city}:offer:{driver}`, expiring with the offer), so that the driver's stream
/// on any node re-sends an offer another node made. An offer withdrawn, taken or ended is removed (only if it is
/// still that trip's, `cab_drop_offer`).
///
/// Redis writes go out in order on a queue of their own (at most `maxQueuedWrites`; beyond, they are dropped and
/// the offer lapses by itself): dispatch never waits for Redis. A look-up waits at most `timeoutMilliseconds`, and
/// after a failure Redis is not asked for a second (the driver's stream then opens without the other node's offer).
public final class ClusterTripBus: TripNotificationBus {
    private let local = InProcessTripBus()
    private let redis: RedisClient
    private let keys: ClusterKeys
    private let writes = DispatchQueue(label: "swiftcab.cluster.offers")
    private let queued = Atomic<Int>(0)
    private let downUntil = Mutex<ContinuousClock.Instant?>(nil)
    private let reader = Mutex<RedisStreamReader?>(nil)
    private let endpoint: RedisEndpoint
    private let node: String
    /// Most offer writes waiting for Redis.
    public let maxQueuedWrites: Int

    /// A bus of `node` for `keys`' city over the Redis at `endpoint`; `start()` follows the other nodes.
    public init(
        endpoint: RedisEndpoint, keys: ClusterKeys, node: String, timeoutMilliseconds: Int = 250,
        maxQueuedWrites: Int = 10_000
    ) {
        redis = RedisClient(endpoint, timeoutMilliseconds: timeoutMilliseconds)
        self.endpoint = endpoint
        self.node = node
        self.keys = keys
        self.maxQueuedWrites = maxQueuedWrites
    }

    /// Follows the other nodes' notifications (from now on) on a thread of its own, until `stop()`.
    public func start() {
        let node = self.node
        let stream = RedisStreamReader(endpoint, streams: [(key: keys.tripEvents, after: "$")]) {
            [weak self] entries in
            for entry in entries where entry.value("node") != node {
                guard let self, let text = entry.value("n"),
                    let forwarded = try? JSONDecoder().decode(ForwardedTripNotification.self, from: Data(text.utf8)),
                    let audience = forwarded.audience
                else { continue }
                if forwarded.kind == "finish", case .trip(let trip) = audience {
                    local.finish(trip: trip)
                } else if let notification = forwarded.notification {
                    local.publish(notification, to: audience)
                }
            }
        }
        reader.withLock { $0 = stream }
        stream.start()
    }

    /// Stops following the other nodes.
    public func stop() {
        reader.takeAndStop()
    }

    public func publish(_ notification: TripNotification, to audience: TripAudience) {
        local.publish(notification, to: audience)
        // An offer is stored before it is forwarded (one queue, in order): a driver who sees it on any node can
        // accept it there (`DispatchCoordinator.accept` reads it back with `openOffer`).
        defer { forward(ForwardedTripNotification(notification, to: audience)) }
        guard case .driver(let driver) = audience else { return }
        switch notification {
        case .offer(let offer):
            let key = keys.offer(driver.rawValue)
            let value = Self.stored(offer)
            let expiresAt = offer.expiresAt.millisecondsSinceEpoch
            write { redis in _ = try redis.command("SET", key, value, "PXAT", expiresAt) }
        case .offerWithdrawn(let trip, _), .assigned(let trip, _), .tripEnded(let trip, _, _),
            .tripTakenBack(let trip, _, _):
            let key = keys.offer(driver.rawValue)
            write { redis in
                _ = try ClusterFunctions.call(redis, "cab_drop_offer", keys: [key], arguments: [trip.rawValue])
            }
        default:
            return
        }
    }

    public func finish(trip: BookingID) {
        local.finish(trip: trip)
        forward(ForwardedTripNotification(audience: .trip(trip), kind: "finish"))
    }

    private func forward(_ forwarded: ForwardedTripNotification) {
        // Plain values only: encoding cannot fail.
        guard let data = try? JSONEncoder().encode(forwarded) else { return }
        let text = String(decoding: data, as: UTF8.self)
        let (key, node) = (keys.tripEvents, self.node)
        write { redis in _ = try redis.command("XADD", key, "MAXLEN", "~", 10_000, "*", "node", node, "n", text) }
    }

    public func subscribe(_ receiver: any TripNotificationReceiver, to audience: TripAudience) {
        local.subscribe(receiver, to: audience)
    }

    public func unsubscribe(_ receiver: any TripNotificationReceiver, from audience: TripAudience) {
        local.unsubscribe(receiver, from: audience)
    }

    /// Notifications cross nodes.
    public var spansNodes: Bool { true }

    /// Claims the driver's offer key (`SET NX`, expiring with the offer) before the offer is sent, so two nodes
    /// do not offer one driver two trips at once. Redis away: the claim is granted (each node's own rule of one
    /// offer per driver still holds), and Redis is not asked again for a second.
    public func claimOffer(_ offer: TripOffer, for driver: DriverID) -> Bool {
        ask(otherwise: true) { redis in
            let reply = try redis.command(
                "SET", keys.offer(driver.rawValue), Self.stored(offer), "NX", "PXAT",
                offer.expiresAt.millisecondsSinceEpoch)
            if case .null = reply { return false }
            return true
        }
    }

    public func openOffer(for driver: DriverID, at time: Instant) -> TripOffer? {
        ask(otherwise: nil) { redis in
            guard let stored = try redis.command("GET", keys.offer(driver.rawValue)).string,
                let newline = stored.firstIndex(of: "\n"),
                let offer = TripOffer(json: stored[stored.index(after: newline)...]), time < offer.expiresAt
            else { return nil }
            return offer
        }
    }

    /// An offer as its driver's key holds it: the trip id, a newline, the offer's JSON.
    private static func stored(_ offer: TripOffer) -> String { offer.tripID.rawValue + "\n" + offer.json }

    /// Asks Redis on the caller's thread; after a failure Redis is not asked for a second, and `fallback` is the
    /// answer meanwhile (dispatch and streams never wait on a Redis that is away).
    private func ask<T>(otherwise fallback: T, _ body: (RedisClient) throws -> T) -> T {
        let now = ContinuousClock.now
        if let until = downUntil.withLock({ $0 }), now < until { return fallback }
        do {
            return try body(redis)
        } catch {
            downUntil.withLock { $0 = now + .seconds(1) }
            return fallback
        }
    }

    /// Waits until the queued writes were sent (tests, shutdown).
    public func flush() { writes.sync {} }

    private func write(_ body: @escaping @Sendable (RedisClient) throws -> Void) {
        guard queued.add(1, ordering: .relaxed).newValue <= maxQueuedWrites else {
            queued.subtract(1, ordering: .relaxed)
            return
        }
        writes.async { [self] in
            defer { queued.subtract(1, ordering: .relaxed) }
            // Redis away: the offer lapses by itself (PXAT) on a server that has it; nothing to retry.
            try? body(redis)
        }
    }
}

extension ClusterKeys {
    /// The stream of trip notifications every node forwards to the others.
    public var tripEvents: String { prefix + "trip-events" }

    /// The open offer of `driver` (a trip id, a newline, the offer's JSON), expiring with it.
    public func offer(_ driver: String) -> String { prefix + "offer:" + driver }
}

extension TripOffer {
    /// The offer as nodes exchange it: JSON with the trip, the two places, their names, the ETA and the expiry.
    var json: String {
        var object: [String: Any] = [
            "trip": tripID.rawValue, "pickup": [pickup.latitude, pickup.longitude],
            "dropoff": [dropoff.latitude, dropoff.longitude], "eta_s": etaSeconds,
            "expires_ms": expiresAt.millisecondsSinceEpoch,
        ]
        if let pickupName { object["pickup_name"] = pickupName }
        if let dropoffName { object["dropoff_name"] = dropoffName }
        // Strings, numbers and arrays of numbers only: serialising cannot fail.
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
        return String(decoding: data, as: UTF8.self)
    }

    /// Reads `json`; nil when it is malformed (from another version: skipped, never trusted).
    init?(json: some StringProtocol) {
        guard let object = try? JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any],
            let trip = (object["trip"] as? String).flatMap({ BookingID($0) }),
            let pickup = object["pickup"] as? [Double], pickup.count == 2,
            let dropoff = object["dropoff"] as? [Double], dropoff.count == 2,
            let eta = object["eta_s"] as? Int, let expires = (object["expires_ms"] as? NSNumber)?.int64Value
        else { return nil }
        self.init(
            tripID: trip, pickup: Coordinate(latitude: pickup[0], longitude: pickup[1]),
            dropoff: Coordinate(latitude: dropoff[0], longitude: dropoff[1]),
            pickupName: object["pickup_name"] as? String, dropoffName: object["dropoff_name"] as? String,
            etaSeconds: eta, expiresAt: Instant(millisecondsSinceEpoch: expires))
    }
}
