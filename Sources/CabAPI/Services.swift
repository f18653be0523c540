import CabBaseMap

/// The loaded parts the API answers from. A part that is nil makes its endpoints answer 503 with what to do.
public struct Services: Sendable {
    /// Roads and routes, from the imported map.
    public var routing: RoutingService?
    /// The drawable base map.
    public var baseMap: BaseMapIndex?

    /// Creates the set of services.
    public init(routing: RoutingService? = nil, baseMap: BaseMapIndex? = nil) {
        self.routing = routing
        self.baseMap = baseMap
    }
}
