import CabCore
import CabGeo
import CabTracking

/// A driver's accepted position as nodes exchange it: one line of text,
/// `driver,time_ms,lat,lon,heading,speed,status,vehicle` (empty heading or speed when unknown), so that the
/// server-side functions can read its time and an operator can read it with `redis-cli`.
public struct ReplicatedPosition: Hashable, Sendable {
    /// Whose.
    public var driver: DriverID
    /// Where, when, how, and the driver's status and vehicle class as the publishing node knew them.
    public var position: DriverPosition

    /// A position of `driver`.
    public init(driver: DriverID, position: DriverPosition) {
        self.driver = driver
        self.position = position
    }

    /// The line.
    public var line: String {
        let p = position
        let heading = p.headingDegrees.map(String.init) ?? ""
        let speed = p.speedMetersPerSecond.map { String($0) } ?? ""
        return "\(driver.rawValue),\(p.timeMilliseconds),\(p.coordinate.latitude),\(p.coordinate.longitude),"
            + "\(heading),\(speed),\(p.status.rawValue),\(p.vehicleClass.rawValue)"
    }

    /// Reads a line; nil when it is malformed (a line from another version is skipped, never trusted).
    public init?(line: some StringProtocol) {
        let parts = line.split(separator: ",", omittingEmptySubsequences: false)
        guard parts.count == 8, let driver = DriverID(parts[0]), let time = Int64(parts[1]),
            let lat = Double(parts[2]), let lon = Double(parts[3]), let statusRaw = UInt8(parts[6]),
            let status = DriverStatus(rawValue: statusRaw), let vehicleRaw = UInt8(parts[7]), vehicleRaw < 64
        else { return nil }
        let coordinate = Coordinate(latitude: lat, longitude: lon)
        guard coordinate.isValid else { return nil }
        let heading = parts[4].isEmpty ? nil : Int(parts[4])
        let speed = parts[5].isEmpty ? nil : Double(parts[5])
        if !parts[4].isEmpty && heading == nil || !parts[5].isEmpty && speed == nil { return nil }
        self.driver = driver
        position = DriverPosition(
            coordinate: coordinate, timeMilliseconds: time, headingDegrees: heading, status: status,
            vehicleClass: VehicleClass(rawValue: vehicleRaw), speedMetersPerSecond: speed)
    }

    /// Lines joined by newlines (a stream entry's batch).
    static func batch(_ positions: [ReplicatedPosition]) -> String { positions.map(\.line).joined(separator: "\n") }

    /// The positions of a batch; malformed lines are skipped.
    static func positions(inBatch text: String) -> [ReplicatedPosition] { lines(inBatch: text).compactMap { $0 } }

    /// Each line of a batch parsed, in order; nil for a malformed line (it keeps its place, and so its event id).
    static func lines(inBatch text: String) -> [ReplicatedPosition?] {
        text.split(separator: "\n").map { ReplicatedPosition(line: $0) }
    }
}

/// A position as a fleet event: the dense cluster-wide id `cab_publish` gave its line.
public struct NumberedPosition: Hashable, Sendable {
    /// The event id (`Last-Event-ID`).
    public var eventID: UInt64
    /// The position.
    public var position: ReplicatedPosition

    /// A numbered position.
    public init(eventID: UInt64, position: ReplicatedPosition) {
        self.eventID = eventID
        self.position = position
    }

    /// A batch's parsed lines (`ReplicatedPosition.lines(inBatch:)`) numbered from `first` in order; a malformed
    /// line is skipped with its id.
    static func numbering(_ lines: [ReplicatedPosition?], from first: UInt64) -> [NumberedPosition] {
        lines.enumerated().compactMap { i, line in
            line.map { NumberedPosition(eventID: first + UInt64(i), position: $0) }
        }
    }
}
