/// The loaded parts the API answers from. A part that is nil makes its endpoints answer 503 with what to do.
public struct Services: Sendable {
    /// Roads and routes, from the imported map.
    public var routing: RoutingService?

    /// Creates the set of services.
    public init(routing: RoutingService? = nil) {
        self.routing = routing
    }
}
