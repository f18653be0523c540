import CabCore
import CabGeo

/// Whether a driver can take a ride.
public enum DriverStatus: UInt8, CaseIterable, Hashable, Sendable, Codable {
    /// On shift and free.
    case available = 0
    /// On shift, on a trip or heading to a pickup.
    case busy = 1
    /// Off shift.
    case offline = 2
}

/// A kind of vehicle as the index stores it: one byte, up to 64 kinds (raw values 0 ..< 64).
///
/// The index's compact form of `CabCore.VehicleType` (`VehicleClass(_:)` maps one to the other).
public struct VehicleClass: RawRepresentable, Hashable, Sendable, Codable {
    /// The small number that stands for this kind.
    public let rawValue: UInt8
    /// Creates a kind; traps outside 0 ..< 64.
    public init(rawValue: UInt8) {
        precondition(rawValue < 64, "vehicle classes are numbered 0 ..< 64")
        self.rawValue = rawValue
    }
    /// An ordinary car.
    public static let standard = VehicleClass(rawValue: 0)
    /// A larger car for up to six riders.
    public static let large = VehicleClass(rawValue: 1)
    /// A car that takes a wheelchair.
    public static let accessible = VehicleClass(rawValue: 2)
    /// A premium car.
    public static let premium = VehicleClass(rawValue: 3)

    /// The class of a `CabCore.VehicleType`.
    public init(_ type: VehicleType) {
        switch type {
        case .standard: self = .standard
        case .large: self = .large
        case .accessible: self = .accessible
        case .premium: self = .premium
        }
    }
}

/// A driver's latest known position and state.
public struct DriverPosition: Hashable, Sendable {
    /// Where the driver was.
    public var coordinate: Coordinate
    /// When (Unix milliseconds).
    public var timeMilliseconds: Int64
    /// The direction of travel in whole degrees, when known.
    public var headingDegrees: Int?
    /// The speed the device reported, in metres per second (to 0.1 m/s), when known.
    public var speedMetersPerSecond: Double?
    /// Whether the driver can take a ride.
    public var status: DriverStatus
    /// The driver's vehicle.
    public var vehicleClass: VehicleClass

    /// Creates a position.
    public init(
        coordinate: Coordinate, timeMilliseconds: Int64, headingDegrees: Int? = nil,
        status: DriverStatus = .available, vehicleClass: VehicleClass = .standard, speedMetersPerSecond: Double? = nil
    ) {
        self.coordinate = coordinate
        self.timeMilliseconds = timeMilliseconds
        self.headingDegrees = headingDegrees
        self.speedMetersPerSecond = speedMetersPerSecond
        self.status = status
        self.vehicleClass = vehicleClass
    }
}

/// Which drivers a nearest search may return; checked inside the search.
public struct DriverFilter: Hashable, Sendable {
    private var statusMask: UInt8
    private var vehicleMask: UInt64
    /// Drivers farther than this are not returned (nil: no limit).
    public var maxDistanceMeters: Double?

    /// Drivers in one of `statuses` with one of `vehicleClasses` (nil: any vehicle), within `maxDistanceMeters`.
    public init(
        statuses: Set<DriverStatus> = [.available], vehicleClasses: Set<VehicleClass>? = nil,
        maxDistanceMeters: Double? = nil
    ) {
        statusMask = statuses.reduce(0) { $0 | 1 << $1.rawValue }
        vehicleMask = vehicleClasses.map { $0.reduce(0) { $0 | 1 << UInt64($1.rawValue) } } ?? .max
        self.maxDistanceMeters = maxDistanceMeters
    }

    /// Available drivers of any vehicle class.
    public static let available = DriverFilter()

    @inline(__always) func admits(status: UInt8, vehicle: UInt8) -> Bool {
        statusMask & (1 << status) != 0 && vehicleMask & (1 << UInt64(vehicle)) != 0
    }
}

/// One answer of a nearest search.
public struct NearbyDriver<Key: Hashable & Sendable>: Hashable, Sendable {
    /// The driver.
    public var driver: Key
    /// Straight-line distance from the query point, in metres (equirectangular at the query's latitude).
    public var distanceMeters: Double
    /// The driver's latest position.
    public var position: DriverPosition
}
