import CabGeo

/// How a `NearestDriverIndex` lays out its grid and when a position goes stale.
public struct DriverIndexConfiguration: Sendable, Hashable {
    /// The grid's cell edge in metres (north-south; east-west at `referenceLatitude`).
    public var cellSizeMeters: Double
    /// The latitude at which cells are square (the city's); elsewhere they are narrower east-west.
    public var referenceLatitude: Double
    /// A driver whose last fix is older than this is skipped by searches (no sweeper needed).
    public var maxAgeMilliseconds: Int64
    /// The status a driver gets on its first position.
    public var initialStatus: DriverStatus

    /// Creates a configuration.
    public init(
        cellSizeMeters: Double = 250, referenceLatitude: Double = 0, maxAgeMilliseconds: Int64 = 120_000,
        initialStatus: DriverStatus = .available
    ) {
        precondition(cellSizeMeters > 0 && abs(referenceLatitude) < 85, "cells need a positive size")
        self.cellSizeMeters = cellSizeMeters
        self.referenceLatitude = referenceLatitude
        self.maxAgeMilliseconds = maxAgeMilliseconds
        self.initialStatus = initialStatus
    }
}

/// Every driver's latest position in a uniform grid with flat storage: updates in O(1), k-nearest by
/// rings of cells around the query, filters and staleness checked inside the search.
///
/// Storage is struct-of-arrays indexed by a slot number (coordinates as 1e-7 degree integers); each grid cell
/// lists its slots, and each slot knows its place in that list so a move is a swap-remove and an append.
/// Not thread-safe by itself: `LiveFleet` wraps it in a reader-writer lock.
public struct NearestDriverIndex<Key: Hashable & Sendable>: Sendable {
    /// The configuration.
    public let configuration: DriverIndexConfiguration
    let cellLatitudeDegrees: Double
    let cellLongitudeDegrees: Double

    var slotByKey: [Key: Int32] = [:]
    var keys: [Key] = []  // a freed slot keeps its old key; cellOfSlot -1 marks it free
    var latitudesE7: [Int32] = []
    var longitudesE7: [Int32] = []
    var timesMilliseconds: [Int64] = []
    var headings: [UInt16] = []  // whole degrees, or .max when unknown
    var speedsDecimeters: [UInt16] = []  // 0.1 m/s, or .max when unknown
    var statuses: [UInt8] = []
    var vehicles: [UInt8] = []
    var cellOfSlot: [Int32] = []
    var placeInCell: [Int32] = []
    var freeSlots: [Int32] = []

    var cellByKey: [Int64: Int32] = [:]
    var cellMembers: [[Int32]] = []
    var occupiedX: ClosedRange<Int32>?
    var occupiedY: ClosedRange<Int32>?

    /// An empty index.
    public init(configuration: DriverIndexConfiguration = DriverIndexConfiguration()) {
        self.configuration = configuration
        cellLatitudeDegrees = configuration.cellSizeMeters / Self.metersPerDegreeLatitude
        let cosine =
            LocalProjection(referenceLatitude: configuration.referenceLatitude).metersPerDegreeLongitude
            / Self.metersPerDegreeLatitude
        cellLongitudeDegrees = cellLatitudeDegrees / cosine
    }

    static var metersPerDegreeLatitude: Double { earthRadiusMeters * .pi / 180 }

    /// How many drivers the index holds.
    public var count: Int { slotByKey.count }

    /// Sets `driver`'s position (adding the driver with the initial status and `vehicleClass` when new).
    /// - Complexity: O(1) amortized.
    @discardableResult
    public mutating func update(
        _ driver: Key, coordinate: Coordinate, timeMilliseconds: Int64, headingDegrees: Double? = nil,
        speedMetersPerSecond: Double? = nil, vehicleClass: VehicleClass = .standard
    ) -> Int32 {
        precondition(coordinate.isValid, "an index position must be a valid coordinate")
        let slot = slotByKey[driver] ?? insert(driver, vehicleClass: vehicleClass)
        let s = Int(slot)
        latitudesE7[s] = Int32((coordinate.latitude * 1e7).rounded())
        longitudesE7[s] = Int32((coordinate.longitude * 1e7).rounded())
        timesMilliseconds[s] = timeMilliseconds
        if let h = headingDegrees, h.isFinite {
            // Reduced to (-360, 360) before any integer conversion: a heading of 1e19 must not trap.
            let turned = h.truncatingRemainder(dividingBy: 360).rounded()
            var whole = Int(turned) % 360
            if whole < 0 { whole += 360 }
            headings[s] = UInt16(whole)
        } else {
            headings[s] = .max
        }
        if let v = speedMetersPerSecond, v.isFinite, v >= 0 {
            speedsDecimeters[s] = UInt16(min(v * 10, 65_534).rounded())
        } else {
            speedsDecimeters[s] = .max
        }
        let cell = cell(containing: coordinate)
        if cellOfSlot[s] != cell {
            if cellOfSlot[s] >= 0 { leaveCell(slot) }
            joinCell(slot, cell)
        }
        return slot
    }

    /// Sets `driver`'s status; false when the index does not know the driver.
    @discardableResult
    public mutating func setStatus(_ status: DriverStatus, for driver: Key) -> Bool {
        guard let slot = slotByKey[driver] else { return false }
        statuses[Int(slot)] = status.rawValue
        return true
    }

    /// Sets `driver`'s vehicle class; false when the index does not know the driver.
    @discardableResult
    public mutating func setVehicleClass(_ type: VehicleClass, for driver: Key) -> Bool {
        guard let slot = slotByKey[driver] else { return false }
        vehicles[Int(slot)] = type.rawValue
        return true
    }

    /// Forgets `driver`; its slot is reused.
    public mutating func remove(_ driver: Key) {
        guard let slot = slotByKey.removeValue(forKey: driver) else { return }
        leaveCell(slot)
        freeSlots.append(slot)
    }

    /// `driver`'s latest position, stale or not; nil when unknown.
    public func position(of driver: Key) -> DriverPosition? {
        slotByKey[driver].map { position(atSlot: Int($0)) }
    }

    func position(atSlot s: Int) -> DriverPosition {
        DriverPosition(
            coordinate: Coordinate(latitude: Double(latitudesE7[s]) / 1e7, longitude: Double(longitudesE7[s]) / 1e7),
            timeMilliseconds: timesMilliseconds[s], headingDegrees: headings[s] == .max ? nil : Int(headings[s]),
            status: DriverStatus(rawValue: statuses[s]) ?? .offline, vehicleClass: VehicleClass(rawValue: vehicles[s]),
            speedMetersPerSecond: speedsDecimeters[s] == .max ? nil : Double(speedsDecimeters[s]) / 10)
    }

    private mutating func insert(_ driver: Key, vehicleClass: VehicleClass) -> Int32 {
        let slot: Int32
        if let reused = freeSlots.popLast() {
            slot = reused
            keys[Int(slot)] = driver
            statuses[Int(slot)] = configuration.initialStatus.rawValue
            vehicles[Int(slot)] = vehicleClass.rawValue
        } else {
            slot = Int32(keys.count)
            keys.append(driver)
            latitudesE7.append(0)
            longitudesE7.append(0)
            timesMilliseconds.append(0)
            headings.append(.max)
            speedsDecimeters.append(.max)
            statuses.append(configuration.initialStatus.rawValue)
            vehicles.append(vehicleClass.rawValue)
            cellOfSlot.append(-1)
            placeInCell.append(-1)
        }
        slotByKey[driver] = slot
        return slot
    }

    @inline(__always) func cellX(_ longitude: Double) -> Int32 {
        Int32((longitude / cellLongitudeDegrees).rounded(.down))
    }

    @inline(__always) func cellY(_ latitude: Double) -> Int32 {
        Int32((latitude / cellLatitudeDegrees).rounded(.down))
    }

    @inline(__always) static func cellKey(_ x: Int32, _ y: Int32) -> Int64 {
        Int64(x) << 32 | Int64(UInt32(bitPattern: y))
    }

    private mutating func cell(containing coordinate: Coordinate) -> Int32 {
        let x = cellX(coordinate.longitude)
        let y = cellY(coordinate.latitude)
        let key = Self.cellKey(x, y)
        if let cell = cellByKey[key] { return cell }
        let cell = Int32(cellMembers.count)
        cellMembers.append([])
        cellByKey[key] = cell
        occupiedX = occupiedX.map { min($0.lowerBound, x)...max($0.upperBound, x) } ?? x...x
        occupiedY = occupiedY.map { min($0.lowerBound, y)...max($0.upperBound, y) } ?? y...y
        return cell
    }

    private mutating func joinCell(_ slot: Int32, _ cell: Int32) {
        cellOfSlot[Int(slot)] = cell
        placeInCell[Int(slot)] = Int32(cellMembers[Int(cell)].count)
        cellMembers[Int(cell)].append(slot)
    }

    private mutating func leaveCell(_ slot: Int32) {
        let cell = Int(cellOfSlot[Int(slot)])
        let place = Int(placeInCell[Int(slot)])
        let moved = cellMembers[cell].removeLast()
        if moved != slot {
            cellMembers[cell][place] = moved
            placeInCell[Int(moved)] = Int32(place)
        }
        cellOfSlot[Int(slot)] = -1
    }
}
