import CabGeo

/// One position report from a driver's device, as the server receives it.
public struct LocationFix: Hashable, Sendable {
    /// Where the device was.
    public var coordinate: Coordinate
    /// When the device measured it: Unix time in milliseconds.
    public var timeMilliseconds: Int64
    /// The device's horizontal accuracy estimate (radius, 68 %), in metres.
    public var accuracyMeters: Double
    /// The device's speed, in metres per second, when it reports one.
    public var speedMetersPerSecond: Double?
    /// The direction of travel, degrees clockwise from north, when the device reports one.
    public var headingDegrees: Double?
    /// The client's sequence number for this fix, when it sends one.
    public var sequence: Int64?

    /// Creates a fix.
    public init(
        coordinate: Coordinate, timeMilliseconds: Int64, accuracyMeters: Double,
        speedMetersPerSecond: Double? = nil, headingDegrees: Double? = nil, sequence: Int64? = nil
    ) {
        self.coordinate = coordinate
        self.timeMilliseconds = timeMilliseconds
        self.accuracyMeters = accuracyMeters
        self.speedMetersPerSecond = speedMetersPerSecond
        self.headingDegrees = headingDegrees
        self.sequence = sequence
    }
}

/// Why the server dropped a fix.
public enum DropReason: String, CaseIterable, Hashable, Sendable {
    /// The coordinate or a number in the fix is not finite or out of range.
    case invalid
    /// Same time as a fix already applied for this driver: a retried upload.
    case duplicate
    /// Older than the newest fix already applied for this driver.
    case outOfOrder = "out_of_order"
    /// Measured later than "now" plus the tolerance for clock skew.
    case future
    /// Accuracy worse than the configured threshold.
    case inaccurate
    /// Reaching it from the last applied fix needs a speed faster than any car.
    case impossibleSpeed = "impossible_speed"
    /// The driver's rate limit refused the whole batch.
    case rateLimited = "rate_limited"
}

/// How many fixes were dropped, by reason.
public struct DropCounts: Hashable, Sendable {
    private var counts = [Int](repeating: 0, count: DropReason.allCases.count)

    /// No drops.
    public init() {}

    /// The count for `reason`.
    public subscript(reason: DropReason) -> Int {
        get { counts[Self.index(of: reason)] }
        set { counts[Self.index(of: reason)] = newValue }
    }

    /// Every drop, whatever the reason.
    public var total: Int { counts.reduce(0, +) }

    /// Adds `other`'s counts to these.
    public mutating func add(_ other: DropCounts) {
        for i in counts.indices { counts[i] += other.counts[i] }
    }

    private static func index(of reason: DropReason) -> Int {
        // allCases lists every case, so the index always exists.
        DropReason.allCases.firstIndex(of: reason)!
    }
}
