import CabBaseMap
import CabCore
import CabDispatch
import CabPlaces
import CabStore

/// The loaded parts the API answers from. A part that is nil makes its endpoints answer 503 with what to do.
public struct Services: Sendable {
    /// Roads and routes, from the imported map.
    public var routing: RoutingService?
    /// The drawable base map.
    public var baseMap: BaseMapIndex?
    /// Place search and reverse geocoding.
    public var places: PlaceIndex?
    /// Accounts, bookings, trips and trails.
    public var store: (any ApplicationStore)?
    /// Fares.
    public var tariff: Tariff
    /// Live positions, fleet streams and history (needs the store).
    public var tracking: TrackingService?
    /// The clock every endpoint reads (injected so tests can control time).
    public var now: @Sendable () -> Instant
    /// The trip service: bookings, dispatch and the trip lifecycle (issue 7); nil answers 503 on the booking and
    /// trip endpoints.
    public var dispatch: DispatchCoordinator?
    /// Tells a cluster's other nodes of a token revoked here (sign-out), so their token caches drop it at once;
    /// nil on a single node.
    public var revocations: (any TokenRevocationBus)?
    /// The dispatch shards this cluster node holds leases on (issue 18); nil on a single node.
    public var shards: (any ShardOwnershipStatus)?

    /// Creates the set of services.
    public init(
        routing: RoutingService? = nil, baseMap: BaseMapIndex? = nil, store: (any ApplicationStore)? = nil,
        tariff: Tariff = .standard, now: @escaping @Sendable () -> Instant = { Instant.now() }
    ) {
        self.routing = routing
        self.baseMap = baseMap
        self.store = store
        self.tariff = tariff
        self.now = now
    }
}
