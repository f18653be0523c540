/// Who may act on a trip: the four kinds of actor in the transition table.
public enum Role: String, Sendable, Hashable, Codable, CaseIterable, CustomStringConvertible {
    /// The person who booked.
    case rider
    /// The person driving.
    case driver
    /// A human operator who can see everything and assign or cancel by hand.
    case dispatcher
    /// The server itself: dispatch, timeouts.
    case system

    /// The raw value.
    public var description: String { rawValue }
}

/// An authenticated actor: a role and, except for the system, the account id (as text).
public struct Principal: Hashable, Sendable, Codable, CustomStringConvertible {
    /// The role.
    public var role: Role
    /// The account id's text; nil for `.system`.
    public var id: String?

    /// Creates a principal; prefer the typed constructors.
    public init(role: Role, id: String?) {
        precondition((role == .system) == (id == nil), "only the system acts without an account id")
        self.role = role
        self.id = id
    }

    /// A rider.
    public static func rider(_ id: RiderID) -> Principal { Principal(role: .rider, id: id.rawValue) }
    /// A driver.
    public static func driver(_ id: DriverID) -> Principal { Principal(role: .driver, id: id.rawValue) }
    /// A dispatcher.
    public static func dispatcher(_ id: DispatcherID) -> Principal { Principal(role: .dispatcher, id: id.rawValue) }
    /// The server itself.
    public static let system = Principal(role: .system, id: nil)

    /// The rider id when this is a rider.
    public var riderID: RiderID? { role == .rider ? id.flatMap(RiderID.init) : nil }
    /// The driver id when this is a driver.
    public var driverID: DriverID? { role == .driver ? id.flatMap(DriverID.init) : nil }
    /// The dispatcher id when this is a dispatcher.
    public var dispatcherID: DispatcherID? { role == .dispatcher ? id.flatMap(DispatcherID.init) : nil }

    /// `rider:ri_...` or `system`.
    public var description: String { id.map { "\(role):\($0)" } ?? role.rawValue }
}
