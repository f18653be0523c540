import CabCore
import CabGeo
import CabTracking

/// The available cars near a point, for a rider who has not booked yet.
public struct NearbyCars: Sendable, Hashable {
    /// One car: where it is and where it heads (no identity).
    public struct Car: Sendable, Hashable {
        /// Its position.
        public var coordinate: Coordinate
        /// Its heading, whole degrees clockwise from north, if known.
        public var headingDegrees: Int?
    }

    /// The cars, nearest first.
    public var cars: [Car]
    /// Seconds by road from the nearest of them to the point; nil when none can reach it.
    public var nearestETASeconds: Int?
}

extension DispatchCoordinator {
    /// How far `carsNearby` looks, metres.
    static let carsNearbyRadiusMeters = 3_000.0
    /// Most cars `carsNearby` shows.
    static let carsNearbyLimit = 10

    /// The available online cars near `point` (holding no trip), and the road ETA of the nearest of them.
    public func carsNearby(_ point: Coordinate) -> NearbyCars {
        let t = now()
        let (online, busy) = state.withLock { ($0.online, $0.tripOfDriver) }
        let anyNode = bus.spansNodes  // on a cluster, available drivers online on any node (as `candidates`)
        let found = fleet.nearest(
            to: point, k: Self.carsNearbyLimit * 2,
            filter: DriverFilter(statuses: [.available], maxDistanceMeters: Self.carsNearbyRadiusMeters),
            now: t.millisecondsSinceEpoch
        ).filter { (anyNode || online[$0.driver] != nil) && busy[$0.driver] == nil }.prefix(Self.carsNearbyLimit)
        let durations = eta.durationsMilliseconds(from: found.map(\.position.coordinate), to: point)
        let nearest = durations.compactMap { $0 }.min().map { ($0 + 999) / 1000 }
        return NearbyCars(
            cars: found.map {
                NearbyCars.Car(coordinate: $0.position.coordinate, headingDegrees: $0.position.headingDegrees)
            },
            nearestETASeconds: nearest.map { Int($0) })
    }

    /// The open offer `driver` holds, if any (sent again when the driver's stream reconnects).
    public func openOffer(for driver: DriverID) -> TripOffer? {
        let t = now()
        // On a cluster the offer as it was sent first, which the bus keeps: a node that took the trip over holds
        // its own copy, with the time left counted again.
        if bus.spansNodes, let sent = bus.openOffer(for: driver, at: t) { return sent }
        let held = state.withLock { s -> TripOffer? in
            guard let trip = s.offerHeld[driver], let d = s.dispatching[trip], let o = d.machine.openOffers[driver],
                t < o.expiresAt
            else { return nil }
            let b = d.booking
            return TripOffer(
                tripID: trip, pickup: b.pickup, dropoff: b.dropoff, pickupName: b.pickupName,
                dropoffName: b.dropoffName,
                etaSeconds: o.etaSeconds, expiresAt: o.expiresAt)
        }
        // An offer another node of the cluster made (the bus keeps them; an in-process bus answers nil).
        return held ?? bus.openOffer(for: driver, at: t)
    }
}
