/// A rider's account.
public struct Rider: Hashable, Sendable, Codable {
    /// The id.
    public var id: RiderID
    /// The name shown to drivers.
    public var name: String
    /// When the account was made.
    public var createdAt: Instant

    /// Creates a rider.
    public init(id: RiderID, name: String, createdAt: Instant) {
        self.id = id
        self.name = name
        self.createdAt = createdAt
    }

    enum CodingKeys: String, CodingKey {
        case id, name
        case createdAt = "created_at"
    }
}

/// A driver's account and vehicle.
public struct Driver: Hashable, Sendable, Codable {
    /// The id.
    public var id: DriverID
    /// The name shown to riders.
    public var name: String
    /// The vehicle, as shown to riders ("white Toyota Prius").
    public var vehicle: String
    /// The licence plate.
    public var plate: String
    /// What kind of vehicle it is.
    public var vehicleType: VehicleType
    /// When the account was made.
    public var createdAt: Instant

    /// Creates a driver.
    public init(
        id: DriverID, name: String, vehicle: String, plate: String, vehicleType: VehicleType = .standard,
        createdAt: Instant
    ) {
        self.id = id
        self.name = name
        self.vehicle = vehicle
        self.plate = plate
        self.vehicleType = vehicleType
        self.createdAt = createdAt
    }

    enum CodingKeys: String, CodingKey {
        case id, name, vehicle, plate
        case vehicleType = "vehicle_type"
        case createdAt = "created_at"
    }
}

/// A dispatcher's account.
public struct Dispatcher: Hashable, Sendable, Codable {
    /// The id.
    public var id: DispatcherID
    /// The name.
    public var name: String
    /// When the account was made.
    public var createdAt: Instant

    /// Creates a dispatcher.
    public init(id: DispatcherID, name: String, createdAt: Instant) {
        self.id = id
        self.name = name
        self.createdAt = createdAt
    }

    enum CodingKeys: String, CodingKey {
        case id, name
        case createdAt = "created_at"
    }
}

/// The SHA-256 of a bearer token (32 bytes). The store never sees a token itself; the API hashes it.
public struct TokenHash: Hashable, Sendable {
    /// The 32 digest bytes.
    public let bytes: [UInt8]

    /// Wraps a digest; it must be 32 bytes.
    public init(bytes: [UInt8]) {
        precondition(bytes.count == 32, "a SHA-256 digest is 32 bytes")
        self.bytes = bytes
    }

    /// The digest as 64 lower-case hex digits (how nodes exchange revocations).
    public var hex: String { Hex.encode(bytes) }

    /// The digest `hex` spells (64 hex digits); nil for anything else.
    public init?(hex: String) {
        guard let bytes = Hex.decode(hex), bytes.count == 32 else { return nil }
        self.bytes = bytes
    }
}
