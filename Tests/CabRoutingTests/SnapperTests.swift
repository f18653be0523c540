import CabGeo
import Testing

@testable import CabRouting

@Suite struct SnapperTests {
    /// One straight 1.2 km street, and a loop back so that a one-way version stays strongly connected.
    static let longStreet = """
        a...........b
        d...........c
        """

    func streetMap(_ tags: [String: String] = [:]) -> AsciiMap {
        var map = AsciiMap(Self.longStreet, spacingMeters: 100)
        map.way("ab", tags)
        map.way("bcda")
        return map
    }

    @Test func snapsToTheProjectedPointInTheMiddleOfALongSegment() throws {
        let map = streetMap()
        let snapper = Snapper(graph: map.graph())
        let query = map.between("a", "b", 0.5, offsetMeters: 30)
        let snapped = try snapper.snap(query)
        #expect(abs(snapped.distanceMeters - 30) < 0.5)
        #expect(abs(snapped.fraction - 0.5) < 0.001)
        #expect(snapped.coordinate.distanceMeters(to: map.between("a", "b", 0.5)) < 0.5)
        #expect(snapped.coordinate.distanceMeters(to: map.at("a")) > 590)
    }

    @Test func refusesAPointFarFromEveryRoad() throws {
        let map = streetMap()
        let far = map.between("a", "b", 0.5, offsetMeters: 1500)
        let error = #expect(throws: RoutingError.self) { try Snapper(graph: map.graph()).snap(far) }
        #expect(error?.code == .noRoadNearby)
        #expect(error?.message == "no road within 1000 m of \(far)")
        let wide = Snapper(graph: map.graph(), maxDistanceMeters: 2000)
        #expect(abs(try wide.snap(far).distanceMeters - 1500) < 1)
    }

    @Test(arguments: [Coordinate(latitude: 91, longitude: 0), Coordinate(latitude: .nan, longitude: 9.5)])
    func refusesAnInvalidCoordinate(_ coordinate: Coordinate) {
        let error = #expect(throws: RoutingError.self) { try Snapper(graph: streetMap().graph()).snap(coordinate) }
        #expect(error?.code == .invalidCoordinate)
    }

    @Test func snapsOnlyOntoTheLargestComponent() throws {
        var map = AsciiMap(
            """
            a b c

            d e
            """, spacingMeters: 100)
        map.way("ab")
        map.way("bc")
        map.way("de")
        let snapped = try Snapper(graph: map.graph()).snap(map.at("d"))
        #expect(abs(snapped.distanceMeters - 200) < 1)
    }

    @Test(arguments: [(0.2, 0.7), (0.7, 0.2)])
    func routesBetweenTwoPointsOnOneTwoWaySegment(from: Double, to: Double) throws {
        let map = streetMap()
        let route = try map.route(map.between("a", "b", from), map.between("a", "b", to))
        #expect(abs(route.distanceMeters - 600) < 1)
        #expect(abs(route.durationSeconds - 600 / (25 / 3.6)) < 0.01)
        #expect(route.geometry.count == 2)
        #expect(route.geometry.first!.distanceMeters(to: map.between("a", "b", from)) < 0.5)
    }

    @Test func goesRoundTheBlockToReachAPointBehindOnAOneWay() throws {
        let map = streetMap(["oneway": "yes"])
        let ahead = try map.route(map.between("a", "b", 0.2), map.between("a", "b", 0.7))
        #expect(abs(ahead.distanceMeters - 600) < 1)
        let behind = try map.route(map.between("a", "b", 0.7), map.between("a", "b", 0.2))
        // 0.3 of a-b, then b-c, c-d, d-a, then 0.2 of a-b.
        #expect(abs(behind.distanceMeters - (360 + 100 + 1200 + 100 + 240)) < 1)
        #expect(behind.geometry.contains(map.at("c")) && behind.geometry.contains(map.at("d")))
        #expect(behind.geometry.last!.distanceMeters(to: map.between("a", "b", 0.2)) < 0.5)
    }

    @Test func snapsAndRoutesFromTheMiddleOfOneSegmentToAnother() throws {
        let map = streetMap()
        let route = try map.route(map.between("a", "b", 0.5, offsetMeters: 20), map.at("c"))
        #expect(abs(route.distanceMeters - (600 + 100)) < 1)
        #expect(route.geometry.count == 3)
        #expect(route.geometry[0].distanceMeters(to: map.between("a", "b", 0.5)) < 0.5)
        #expect(Array(route.geometry.dropFirst()) == [map.at("b"), map.at("c")])
    }
}
