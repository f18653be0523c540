import CabGeo
import CabTestSupport
import Testing

@testable import CabRouting

/// Turns a cab can make, on small drawn maps: via-way restrictions (`no_*`, `only_*`, one via way or two),
/// U-turns refused at a junction, allowed (with their penalty) at a dead end.
@Suite struct TurnFixtureTests {
    /// A main street a-b-c-d with a side street up from c to g and round to h, and a dead end f off b.
    static let mainStreet = """
          f    g   h
        a b    c   d e
        """

    func mainStreetMap() -> AsciiMap {
        var map = AsciiMap(Self.mainStreet, spacingMeters: 50)
        for way in ["ab", "bc", "cd", "de", "bf", "cg", "gh", "hd"] { map.way(way) }
        return map
    }

    @Test func obeysANoLeftTurnThroughAViaWay() throws {
        var map = mainStreetMap()
        #expect(abs(try map.route("a", "g").distanceMeters - map.length("abcg")) < 1)
        map.restriction("no_left_turn", from: "ab", via: ["bc"], to: "cg")
        // Barred after a-b then b-c. Round by d and h is 800 m; turning back at d (no dead end) is refused; the
        // dead end f is allowed: 100 m more than the barred way plus the 20 s U-turn.
        let detour = try map.route("a", "g")
        #expect(abs(detour.distanceMeters - map.length("abfbcg")) < 1)
        // Only that sequence is barred: from the dead end f the car joins b-c and may turn into c-g.
        #expect(abs(try map.route("f", "g").distanceMeters - map.length("fbcg")) < 1)
        #expect(abs(try map.route("a", "d").distanceMeters - map.length("abcd")) < 1)
        #expect(abs(try map.route("g", "a").distanceMeters - map.length("gcba")) < 1)
        let (_, report) = map.builder.buildReporting()
        #expect(report.appliedRestrictions == 1 && report.viaChainStates == 1)
    }

    @Test func obeysAnOnlyStraightOnThroughAViaWay() throws {
        var map = mainStreetMap()
        map.restriction("only_straight_on", from: "ab", via: ["bc"], to: "cd")
        #expect(abs(try map.route("a", "d").distanceMeters - map.length("abcd")) < 1)
        #expect(abs(try map.route("a", "g").distanceMeters - map.length("abfbcg")) < 1)
        #expect(abs(try map.route("f", "g").distanceMeters - map.length("fbcg")) < 1)
    }

    @Test func obeysANoLeftTurnThroughTwoViaWays() throws {
        var map = mainStreetMap()
        #expect(abs(try map.route("a", "h").distanceMeters - map.length("abcdh")) < 1)
        map.restriction("no_left_turn", from: "ab", via: ["bc", "cd"], to: "hd")
        #expect(abs(try map.route("a", "h").distanceMeters - map.length("abcgh")) < 1)
        #expect(abs(try map.route("g", "h").distanceMeters - map.length("gh")) < 1)
    }

    @Test func countsViaWaysOutOfOrderWithoutGuessing() throws {
        var map = mainStreetMap()
        map.restriction("no_left_turn", from: "ab", via: ["cd", "bc"], to: "hd")  // members out of order
        map.restriction("no_left_turn", from: "ab", via: ["gh"], to: "hd")  // via way not joined to a-b
        let (graph, report) = map.builder.buildReporting()
        #expect(report.brokenViaChains == 2 && report.appliedRestrictions == 0)
        #expect(graph.nodeCount == 8)
        #expect(abs(try map.route("a", "h").distanceMeters - map.length("abcdh")) < 1)
    }

    /// A left turn barred at b; turning back at c would be the shortest way round, and c is no dead end.
    static let crossing = """
              h
          g
        a b   c
        """

    func crossingMap() -> AsciiMap {
        var map = AsciiMap(Self.crossing, spacingMeters: 50)
        for way in ["ab", "bc", "bg", "gh", "hc"] { map.way(way) }
        map.restriction("no_left_turn", from: "ab", via: "b", to: "bg")
        return map
    }

    @Test func refusesAUTurnThatWouldDodgeARestriction() throws {
        let map = crossingMap()
        // Round the block (a-b-c-h-g) rather than a-b-c, turn back, c-b-g: the U-turn is 56 m shorter.
        #expect(map.length("abcbg") < map.length("abchg") - 50)
        let route = try map.route("a", "g")
        #expect(abs(route.distanceMeters - map.length("abchg")) < 1)
        #expect(route.geometry.contains(map.at("h")))
    }

    /// The limit of the rings: c is in b's first ring, d (no dead end: d-h, d-i) is not, so with one ring the car
    /// may still turn back at d and come back past c to b; a second ring (the default) bans that too.
    @Test func refusesAUTurnTwoPiecesAwayUnlessTheRingsStopShort() throws {
        var map = AsciiMap(
            """
                      h



              g
            a b       c d      i
            """, spacingMeters: 50)
        for way in ["ab", "bc", "cd", "bg", "gh", "hc", "dh", "di"] { map.way(way) }
        map.restriction("no_left_turn", from: "ab", via: "b", to: "bg")
        #expect(map.length("abcdcbg") < map.length("abchg"))
        #expect(abs(try map.route("a", "g").distanceMeters - map.length("abchg")) < 1)
        map.uTurnGuardRings = 1
        #expect(abs(try map.route("a", "g").distanceMeters - map.length("abcdcbg")) < 1)
        map.uTurnGuardRings = 2
        #expect(abs(try map.route("a", "g").distanceMeters - map.length("abchg")) < 1)
    }

    /// Where one way ends and the next begins (j: the street b-j-c is two ways, as g is between b-g and g-h) there
    /// is no turn to make, so the rings pass it without counting: one ring reaches the junctions c and h, and the
    /// car may not turn back at c to dodge the ban at b (counting j as a ring, it did: a-b-j-c-j-b-g).
    @Test func ringsPassJointsBetweenWaysWithoutCounting() throws {
        var map = AsciiMap(
            """
                      h



              g
            a b   j   c   d    i
            """, spacingMeters: 50)
        for way in ["ab", "bj", "jc", "cd", "bg", "gh", "hc", "dh", "di"] { map.way(way) }
        map.restriction("no_left_turn", from: "ab", via: "b", to: "bg")
        map.uTurnGuardRings = 1
        #expect(map.length("abjcjbg") < map.length("abjchg") - 150)
        #expect(abs(try map.route("a", "g").distanceMeters - map.length("abjchg")) < 1)
        let (_, report) = map.builder.buildReporting()
        // b, its neighbours a, j and g, and past the joints j and g the junctions c and h.
        #expect(report.turnAwareJunctions == 6)
    }

    /// A left turn barred at b; the block round by c is long, the dead end g is close.
    static let deadEnd = """
          e       f
        a b       c
          g
        """

    @Test func turnsBackAtADeadEndAndPaysThePenalty() throws {
        var map = AsciiMap(Self.deadEnd, spacingMeters: 50)
        for way in ["ab", "bc", "cf", "fe", "be", "bg"] { map.way(way) }
        map.restriction("no_left_turn", from: "ab", via: "b", to: "be")
        let route = try map.route("a", "e")
        #expect(abs(route.distanceMeters - map.length("abgbe")) < 1)
        #expect(route.geometry.contains(map.at("g")))
        // 25 km/h on residential streets, plus the 20 s the U-turn costs.
        let driving = route.distanceMeters / (25 / 3.6) * 1000
        #expect(abs(Double(route.durationMilliseconds) - driving - 20_000) < 5)
        // Starting part-way along the dead end the car pays no penalty.
        let inside = try map.route(map.between("g", "b", 0.5), map.at("e"))
        #expect(abs(Double(inside.durationMilliseconds) - inside.distanceMeters / (25 / 3.6) * 1000) < 5)
    }
}

/// Barriers on the road (OSRM's car profile lets the same ones pass).
@Suite struct BarrierFixtureTests {
    static let ladder = """
        a b c
        d e f
        """

    @Test func turnsBackAtABollardAndPaysForAGate() throws {
        var map = AsciiMap(Self.ladder, spacingMeters: 50)
        for way in ["abc", "def", "ad", "cf"] { map.way(way) }
        #expect(abs(try map.route("a", "c").distanceMeters - map.length("abc")) < 1)
        var blocked = map
        blocked.node("b", ["barrier": "bollard"])
        // The bollard at b closes a-b-c; round by d, e and f. Up to the bollard the car may drive, and back.
        #expect(abs(try blocked.route("a", "c").distanceMeters - map.length("adefc")) < 1)
        let (_, report) = blocked.builder.buildReporting()
        #expect(report.barriers == 1)
        // A gate lets the car through but costs 60 s (someone opens it): the 150 m round by d, e and f is quicker.
        var gated = map
        gated.node("b", ["barrier": "gate"])
        #expect(abs(try gated.route("a", "c").distanceMeters - map.length("adefc")) < 1)
        // One with access tags of its own stands open to the cab.
        gated.node("e", ["barrier": "gate", "access": "yes"])
        var open = map
        open.node("b", ["barrier": "lift_gate", "motor_vehicle": "yes"])
        #expect(abs(try open.route("a", "c").distanceMeters - map.length("abc")) < 1)
        var busGate = map
        busGate.node("b", ["barrier": "bollard", "psv": "yes"])
        #expect(abs(try busGate.route("a", "c").distanceMeters - map.length("abc")) < 1)
    }
}
