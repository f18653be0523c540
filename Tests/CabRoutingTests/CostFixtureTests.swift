import CabGeo
import Testing

@testable import CabRouting

/// What a drive costs besides distance and speed, on small drawn maps: traffic signals and gates on the way, rough
/// surfaces, service roads and narrow two-way roads (as OSRM's car profile ranks them).
@Suite struct CostFixtureTests {
    /// Two ways from a to c: the straight one by b (400 m), the other by d and e (424 m).
    static let twoWays = """
        a   b   c
          d   e
        """

    func twoWaysMap(_ straight: [String: String] = [:]) -> AsciiMap {
        var map = AsciiMap(Self.twoWays, spacingMeters: 50)
        map.way("abc", straight)
        map.way("adec")
        return map
    }

    /// Milliseconds to drive `meters` at `kmh`.
    func driving(_ meters: Double, kmh: Double) -> Double { meters / (kmh / 3.6) * 1000 }

    @Test func paysTwoSecondsPerTrafficSignalAndAvoidsAStreetFullOfThem() throws {
        var map = AsciiMap(
            """
            a f b g c
              d   e
            """, spacingMeters: 50)
        map.way("afbgc")
        map.way("adec")
        // The way by d and e is 24 m longer: 3.4 s at 25 km/h. One signal (2 s) does not outweigh that.
        map.node("b", ["highway": "traffic_signals"])
        var route = try map.route("a", "c")
        #expect(abs(route.distanceMeters - map.length("afbgc")) < 1)
        #expect(abs(Double(route.durationMilliseconds) - driving(map.length("afbgc"), kmh: 25) - 2_000) < 5)
        // Two (4 s) do.
        map.node("f", ["highway": "traffic_signals"])
        route = try map.route("a", "c")
        #expect(abs(route.distanceMeters - map.length("adec")) < 1)
        // A signal at the junction c is paid once by a car arriving there along either way; not where it starts.
        map.node("c", ["highway": "traffic_signals"])
        map.node("a", ["highway": "traffic_signals"])
        route = try map.route("a", "c")
        #expect(abs(route.distanceMeters - map.length("adec")) < 1)
        #expect(abs(Double(route.durationMilliseconds) - driving(map.length("adec"), kmh: 25) - 2_000) < 5)
        // A signal for the other direction only (`traffic_signals:direction`) costs this way nothing.
        map.node("b", ["highway": "traffic_signals", "traffic_signals:direction": "backward"])
        #expect(abs(try map.route("a", "c").distanceMeters - map.length("afbgc")) < 1)
        map.node("e", ["highway": "crossing"])  // no cost
        #expect(map.builder.buildReporting().report.delayNodes == 4)
    }

    @Test func readsASignalsDirectionAlongTheWay() throws {
        // Through the whole piece a-c (a route starting or ending part-way along a piece reads its cost off the
        // cheaper direction, as for the U-turn penalty).
        var map = AsciiMap(
            """
            x a f b g c y
            """, spacingMeters: 50)
        for way in ["xa", "afbgc", "cy"] { map.way(way) }
        map.node("b", ["highway": "traffic_signals", "traffic_signals:direction": "forward"])
        let there = try map.route("x", "y")
        let back = try map.route("y", "x")
        #expect(abs(Double(there.durationMilliseconds) - driving(map.length("xy"), kmh: 25) - 2_000) < 5)
        #expect(abs(Double(back.durationMilliseconds) - driving(map.length("xy"), kmh: 25)) < 5)
    }

    @Test func drivesCobblesAndParkingAislesSlowly() throws {
        // At 40 km/h (maxspeed 50) the straight way wins; cobbles cap it at 30 km/h and the detour wins.
        let fast = twoWaysMap(["maxspeed": "50"])
        #expect(abs(try fast.route("a", "c").distanceMeters - fast.length("abc")) < 1)
        var cobbledDetour = AsciiMap(Self.twoWays, spacingMeters: 50)
        cobbledDetour.way("abc", ["maxspeed": "50", "surface": "cobblestone"])
        cobbledDetour.way("adec", ["maxspeed": "50"])
        #expect(abs(try cobbledDetour.route("a", "c").distanceMeters - cobbledDetour.length("adec")) < 1)
        // A parking aisle is driven at half the service speed: 7.5 km/h.
        var aisle = AsciiMap(Self.twoWays, spacingMeters: 50)
        aisle.way("abc", ["highway": "service", "service": "parking_aisle"])
        aisle.way("adec", ["highway": "service"])
        let route = try aisle.route("a", "c")
        #expect(abs(route.distanceMeters - aisle.length("adec")) < 1)
        #expect(abs(Double(route.durationMilliseconds) - driving(aisle.length("adec"), kmh: 15)) < 5)
    }

    @Test func drivesANarrowTwoWayStreetSlowly() throws {
        var narrow = AsciiMap(Self.twoWays, spacingMeters: 50)
        narrow.way("abc", ["lanes": "1"])
        narrow.way("adec")
        #expect(abs(try narrow.route("a", "c").distanceMeters - narrow.length("adec")) < 1)
        // One lane one way is no narrow street: nobody comes the other way.
        var oneway = AsciiMap(Self.twoWays, spacingMeters: 50)
        oneway.way("abc", ["lanes": "1", "oneway": "yes"])
        oneway.way("adec")
        #expect(abs(try oneway.route("a", "c").distanceMeters - oneway.length("abc")) < 1)
    }

    @Test func keepsOffTheOutlineOfASquareAndRoadsUnderConstruction() throws {
        for closed in [["highway": "service", "area": "yes"], ["construction": "secondary", "access": "yes"]] {
            var map = AsciiMap(Self.twoWays, spacingMeters: 50)
            map.way("abc", closed)
            map.way("adec")
            #expect(abs(try map.route("a", "c").distanceMeters - map.length("adec")) < 1, "\(closed)")
        }
        var minor = AsciiMap(Self.twoWays, spacingMeters: 50)
        minor.way("abc", ["construction": "minor"])
        minor.way("adec")
        #expect(abs(try minor.route("a", "c").distanceMeters - minor.length("abc")) < 1)
    }
}
