import CabGeo
import Testing

@testable import CabTracking

@Suite struct NearestDriverIndexTests {
    let now: Int64 = 1_000_000_000

    struct Driver {
        var coordinate: Coordinate
        var time: Int64
        var status: DriverStatus
        var vehicle: VehicleClass
    }

    /// Planar distance exactly as the index defines it, computed independently from the inserted points.
    func oracle(_ drivers: [Int: Driver], point: Coordinate, k: Int, filter: (Driver) -> Bool) -> [(Int, Double)] {
        let projection = LocalProjection(referenceLatitude: point.latitude)
        return drivers.filter { filter($0.value) }.map { id, d -> (Int, Double) in
            let (x, y) = projection.offsetMeters(of: d.coordinate, from: point)
            return (id, (x * x + y * y).squareRoot())
        }.sorted { $0.1 < $1.1 }.prefix(k).map { $0 }
    }

    @Test(arguments: [1, 7, 42])
    func kNearestEqualsABruteForceScanWithFiltersAndStaleness(seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        var index = NearestDriverIndex<Int>(
            configuration: DriverIndexConfiguration(
                cellSizeMeters: 300, referenceLatitude: 60.2,
                maxAgeMilliseconds: 60_000))
        var drivers: [Int: Driver] = [:]
        for id in 0..<3000 {
            let d = Driver(
                coordinate: Coordinate(
                    latitude: .random(in: 60.10...60.30, using: &random),
                    longitude: .random(in: 24.70...25.20, using: &random)),
                time: now - Int64.random(in: 0...90_000, using: &random),
                status: DriverStatus.allCases.randomElement(using: &random)!,
                vehicle: VehicleClass(rawValue: .random(in: 0...3, using: &random)))
            index.update(id, coordinate: d.coordinate, timeMilliseconds: d.time, vehicleClass: d.vehicle)
            index.setStatus(d.status, for: id)
            drivers[id] = d
        }
        // Move a third of them (changing cells) and remove a few, as a live fleet does.
        for id in stride(from: 0, to: 3000, by: 3) {
            drivers[id]!.coordinate.latitude += .random(in: -0.01...0.01, using: &random)
            index.update(
                id, coordinate: drivers[id]!.coordinate, timeMilliseconds: drivers[id]!.time,
                vehicleClass: drivers[id]!.vehicle)
        }
        for id in stride(from: 1, to: 3000, by: 50) {
            index.remove(id)
            drivers[id] = nil
        }
        #expect(index.count == drivers.count)
        let fresh = { (d: Driver) in d.time >= self.now - 60_000 }
        for query in 0..<200 {
            let point = Coordinate(
                latitude: .random(in: 60.05...60.35, using: &random),
                longitude: .random(in: 24.65...25.25, using: &random))
            let k = [1, 5, 10, 40][query % 4]
            let (filter, admits): (DriverFilter, (Driver) -> Bool) =
                switch query % 3 {
                case 0: (.available, { $0.status == .available && fresh($0) })
                case 1:
                    (
                        DriverFilter(statuses: [.available, .busy], vehicleClasses: [.large, .premium]),
                        { $0.status != .offline && [1, 3].contains($0.vehicle.rawValue) && fresh($0) }
                    )
                default:
                    (
                        DriverFilter(maxDistanceMeters: 1500),
                        { $0.status == .available && fresh($0) }
                    )
                }
            var expected = oracle(drivers, point: point, k: k, filter: admits)
            if let limit = filter.maxDistanceMeters { expected = expected.filter { $0.1 <= limit } }
            let found = index.nearest(to: point, k: k, filter: filter, now: now)
            #expect(found.map(\.driver) == expected.map(\.0), "query \(query) at \(point)")
            for (f, e) in zip(found, expected) { #expect(abs(f.distanceMeters - e.1) < 0.05) }
            #expect(index.nearestByScan(to: point, k: k, filter: filter, now: now).map(\.driver) == found.map(\.driver))
        }
    }

    @Test func aStaleDriverDropsOutOfTheSearchWithoutASweeper() {
        var index = NearestDriverIndex<String>(configuration: DriverIndexConfiguration(maxAgeMilliseconds: 30_000))
        let here = Coordinate(latitude: 60.17, longitude: 24.94)
        index.update("old", coordinate: here, timeMilliseconds: 0)
        index.update("new", coordinate: Coordinate(latitude: 60.18, longitude: 24.94), timeMilliseconds: 20_000)
        #expect(index.nearest(to: here, k: 2, now: 25_000).map(\.driver) == ["old", "new"])
        #expect(index.nearest(to: here, k: 2, now: 40_000).map(\.driver) == ["new"])
        #expect(index.position(of: "old")?.timeMilliseconds == 0)  // still known, just not dispatchable
    }

    @Test func searchesFindFewerThanKWhenTheFleetIsSmallAndFarApart() {
        var index = NearestDriverIndex<String>()
        index.update("helsinki", coordinate: Coordinate(latitude: 60.17, longitude: 24.94), timeMilliseconds: 0)
        index.update("tallinn", coordinate: Coordinate(latitude: 59.44, longitude: 24.75), timeMilliseconds: 0)
        let found = index.nearest(to: Coordinate(latitude: 60.0, longitude: 24.9), k: 5, now: 0)
        #expect(found.map(\.driver) == ["helsinki", "tallinn"])
    }

    @Test func keepsPositionStatusAndHeadingPerDriver() throws {
        var index = NearestDriverIndex<Int>()
        index.update(
            7, coordinate: Coordinate(latitude: 60.1234567, longitude: 24.7654321), timeMilliseconds: 5,
            headingDegrees: 359.6, vehicleClass: .premium)
        index.setStatus(.busy, for: 7)
        let p = try #require(index.position(of: 7))
        #expect(abs(p.coordinate.latitude - 60.1234567) < 1e-9)
        #expect(p.headingDegrees == 0)
        #expect(p.status == .busy && p.vehicleClass == .premium)
        #expect(index.nearest(to: p.coordinate, k: 1, now: 5).isEmpty)  // busy is not available
    }
}
