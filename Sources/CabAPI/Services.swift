/// The loaded parts the API answers from. A part that is nil makes its endpoints answer 503 with what to do.
public struct Services: Sendable {
    /// Creates the set of services.
    public init() {}
}
