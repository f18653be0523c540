import CabGeo

/// One stored driver position (the trail).
public struct DriverLocationRecord: Hashable, Sendable, Codable {
    /// Whose.
    public var driverID: DriverID
    /// When the fix was taken.
    public var time: Instant
    /// Where.
    public var coordinate: Coordinate
    /// Horizontal accuracy, metres.
    public var accuracyMeters: Double?
    /// Speed, metres per second.
    public var speedMetersPerSecond: Double?
    /// Heading, degrees clockwise from north.
    public var headingDegrees: Double?

    /// Creates a record.
    public init(
        driverID: DriverID, time: Instant, coordinate: Coordinate, accuracyMeters: Double? = nil,
        speedMetersPerSecond: Double? = nil, headingDegrees: Double? = nil
    ) {
        self.driverID = driverID
        self.time = time
        self.coordinate = coordinate
        self.accuracyMeters = accuracyMeters
        self.speedMetersPerSecond = speedMetersPerSecond
        self.headingDegrees = headingDegrees
    }
}

/// Driver position history, written in batches off the hot path (implemented by `CabStore`).
public protocol LocationHistoryRepository: Sendable {
    /// Appends `records` durably in one transaction; a (driver, time) already stored is skipped.
    /// - Returns: how many were new.
    func append(_ records: [DriverLocationRecord]) throws -> Int
    /// A driver's positions with `from <= time < to`, oldest first, at most `limit`.
    func trail(of driver: DriverID, from: Instant, to: Instant, limit: Int) throws -> [DriverLocationRecord]
    /// A driver's newest stored position (replay protection resumes from it after a restart); nil when none.
    func newestLocation(of driver: DriverID) throws -> DriverLocationRecord?
}

extension LocationHistoryRepository {
    /// The newest position through `trail` (a repository with an index on time should answer it directly).
    public func newestLocation(of driver: DriverID) throws -> DriverLocationRecord? {
        try trail(of: driver, from: .epoch, to: Instant(millisecondsSinceEpoch: .max), limit: .max).last
    }
}
