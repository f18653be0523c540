import CabGeo
import Testing

@testable import CabRouting

/// Routes on small drawn maps: what a rider would notice (the way taken, its length, refusals).
@Suite struct RoutingFixtureTests {
    static let square = """
        a b c
        d   e
        """

    @Test func followsAOneWayOnlyInItsDirection() throws {
        var map = AsciiMap(Self.square, spacingMeters: 50)  // columns 50 m apart: a-b-c is 200 m
        map.way("abc", ["oneway": "yes"])
        map.way("adec")
        let ahead = try map.route("a", "c")
        let back = try map.route("c", "a")
        #expect(abs(ahead.distanceMeters - 200) < 1)
        #expect(abs(back.distanceMeters - (50 + 200 + 50)) < 1)
        #expect(back.geometry.first == map.at("c") && back.geometry.last == map.at("a"))
    }

    @Test func followsAOneWayMinusOneAgainstItsDrawing() throws {
        var map = AsciiMap(Self.square, spacingMeters: 50)
        map.way("abc", ["oneway": "-1"])
        map.way("adec")
        #expect(abs(try map.route("c", "a").distanceMeters - 200) < 1)
        #expect(abs(try map.route("a", "c").distanceMeters - 300) < 1)
    }

    /// Tags that close a-b-c to motor vehicles in its drawn direction only: access per direction, a one-way for
    /// motor vehicles against the drawing.
    @Test(arguments: [["motor_vehicle:forward": "no"], ["oneway:motor_vehicle": "-1"]])
    func readsAccessAndOnewayForMotorVehiclesPerDirection(tags: [String: String]) throws {
        var map = AsciiMap(Self.square, spacingMeters: 50)
        map.way("abc", tags)
        map.way("adec")
        #expect(abs(try map.route("a", "c").distanceMeters - 300) < 1)
        #expect(abs(try map.route("c", "a").distanceMeters - 200) < 1)
    }

    static let corner = """
          e f
        a b c
          g
        """

    func cornerMap() -> AsciiMap {
        var map = AsciiMap(Self.corner, spacingMeters: 50)  // b-e is 50 m, b-c is 100 m
        map.way("ab")
        map.way("be")
        map.way("bc")
        map.way("cf")
        map.way("fe")
        map.way("bg")
        return map
    }

    @Test func obeysANoLeftTurn() throws {
        var map = cornerMap()
        #expect(abs(try map.route("a", "e").distanceMeters - 150) < 1)
        map.restriction("no_left_turn", from: "ab", via: "b", to: "be")
        // The cheapest legal way: round the block by c and f (turning back in the dead end g would be 100 m
        // shorter, but the U-turn costs 20 s, more than 100 m at 25 km/h; TurnFixtureTests has one that pays).
        let detour = try map.route("a", "e")
        #expect(abs(detour.distanceMeters - 350) < 1)
        #expect(!detour.geometry.contains(map.at("g")))
        // Only that turn is barred: arriving from c, the car may still turn into b-e; a to g is still allowed.
        #expect(abs(try map.route("c", "e").distanceMeters - 150) < 1)
        #expect(abs(try map.route("a", "g").distanceMeters - 150) < 1)
    }

    @Test func obeysAnOnlyStraightOn() throws {
        var map = cornerMap()
        map.restriction("only_straight_on", from: "ab", via: "b", to: "bc")
        #expect(abs(try map.route("a", "c").distanceMeters - 200) < 1)
        #expect(abs(try map.route("a", "e").distanceMeters - 350) < 1)
        // No way into g after arriving from a, and no U-turn at c (not a dead end): round the block by f and e,
        // arriving at b from e, where g is allowed.
        #expect(abs(try map.route("a", "g").distanceMeters - map.length("abcfebg")) < 1)
        #expect(abs(try map.route("g", "a").distanceMeters - 150) < 1)
    }

    static let ladder = """
        a b c
        d e f
        """

    func ladderMap(rung: [String: String]) -> AsciiMap {
        var map = AsciiMap(Self.ladder, spacingMeters: 50)
        map.way("abc")
        map.way("def")
        map.way("ad")
        map.way("cf")
        map.way("be", rung)
        return map
    }

    @Test func drivesThroughWaysClosedToCarsButOpenToTaxis() throws {
        let open = ladderMap(rung: ["access": "no", "taxi": "yes"])
        #expect(abs(try open.route("b", "e").distanceMeters - 50) < 1)
        let psv = ladderMap(rung: ["motor_vehicle": "no", "psv": "yes"])
        #expect(abs(try psv.route("b", "e").distanceMeters - 50) < 1)
    }

    @Test func avoidsPrivateAndClosedWays() throws {
        for tags in [["access": "private"], ["access": "no"], ["motor_vehicle": "no"]] {
            let map = ladderMap(rung: tags)
            #expect(abs(try map.route("b", "e").distanceMeters - 250) < 1, "\(tags)")
        }
    }

    @Test func refusesATargetCutOffFromTheStart() throws {
        var map = AsciiMap(
            """
            a b
            ...........................
            c d
            """, spacingMeters: 100)
        map.way("ab")
        map.way("cd")
        // Both islands are equally large; whichever is not the snapping component is unreachable.
        let error = #expect(throws: RoutingError.self) {
            try map.route(map.at("a"), map.at("d"), largestComponentOnly: false)
        }
        #expect(error?.code == .unroutable)
        #expect(error?.message.contains("no road route from \(map.at("a"))") == true)
    }

    @Test func usesTheFasterRoadOverTheShorterOne() throws {
        var map = AsciiMap(Self.square, spacingMeters: 50)
        map.way("abc", ["highway": "living_street"])  // 10 km/h over 200 m: 72 s
        map.way("adec", ["highway": "primary"])  // 65 km/h over 300 m: 16.6 s
        let route = try map.route("a", "c")
        #expect(abs(route.distanceMeters - 300) < 1)
        #expect(abs(route.durationSeconds - 300 / (65 / 3.6)) < 0.01)
    }
}
