import Testing

@testable import CabRouting

@Suite struct TravelProfileTests {
    @Test(arguments: [
        ("50", 50.0), ("30 mph", 48.28), ("20mph", 32.19), ("50 km/h", 50), ("10 knots", 18.52), ("60;80", 60),
    ])
    func readsNumericMaxspeeds(value: String, kmh: Double) {
        let parsed = TravelProfile.parseMaxspeedKmh(value)
        #expect(parsed.map { abs($0 - kmh) < 0.01 } == true, "\(value) -> \(String(describing: parsed))")
    }

    @Test(arguments: ["none", "signals", "DE:urban", "RU:rural", "walk", "", "0", "fast"])
    func leavesNonNumericMaxspeedsToTheClassDefault(value: String) {
        #expect(TravelProfile.parseMaxspeedKmh(value) == nil)
        let rule = TravelProfile.taxi.rule(forWay: ["highway": "primary", "maxspeed": value])
        #expect(rule?.speedKmh == 65)
    }

    @Test func drivesAPostedLimitAtEightyPercent() {
        #expect(TravelProfile.taxi.rule(forWay: ["highway": "residential", "maxspeed": "50"])?.speedKmh == 40)
    }

    @Test(
        arguments: [
            (["oneway": "yes"], true, false), (["oneway": "true"], true, false), (["oneway": "1"], true, false),
            (["oneway": "-1"], false, true), (["oneway": "no"], true, true), ([:], true, true),
            (["junction": "roundabout"], true, false), (["junction": "circular"], true, false),
            (["junction": "roundabout", "oneway": "no"], true, true),
            (["oneway": "yes", "oneway:psv": "no"], true, true),
        ] as [([String: String], Bool, Bool)])
    func readsDirections(tags: [String: String], forward: Bool, backward: Bool) {
        let rule = TravelProfile.taxi.rule(forWay: tags.merging(["highway": "tertiary"]) { $1 })
        #expect(rule?.forward == forward)
        #expect(rule?.backward == backward)
    }

    @Test func barsReversibleWaysAndImpliesOnewayOnMotorways() {
        #expect(TravelProfile.taxi.rule(forWay: ["highway": "primary", "oneway": "reversible"]) == nil)
        #expect(TravelProfile.taxi.rule(forWay: ["highway": "motorway"])?.backward == false)
    }

    @Test(
        arguments: [
            (["access": "no"], false), (["access": "private"], false), (["motor_vehicle": "no"], false),
            (["motorcar": "private"], false), (["vehicle": "no"], false),
            (["access": "no", "taxi": "yes"], true), (["access": "no", "psv": "yes"], true),
            (["motor_vehicle": "private", "taxi": "designated"], true), (["access": "destination"], true),
            (["access": "no", "psv": "yes", "taxi": "no"], false), (["access": "no", "bus": "yes"], false),
            (["access": "psv"], true),
        ] as [([String: String], Bool)])
    func letsACabThroughWhereTaxisMayGo(tags: [String: String], open: Bool) {
        #expect((TravelProfile.taxi.rule(forWay: tags.merging(["highway": "service"]) { $1 }) != nil) == open)
    }

    @Test(arguments: ["footway", "cycleway", "path", "steps", "track", "pedestrian", "bus_guideway", "proposed"])
    func doesNotDriveFootAndCyclePaths(highway: String) {
        #expect(TravelProfile.taxi.rule(forWay: ["highway": highway]) == nil)
    }

    @Test func picksTheRestrictionThatAppliesToACab() {
        let profile = TravelProfile.taxi
        #expect(profile.restrictionValue(["restriction": "no_left_turn"]) == "no_left_turn")
        #expect(profile.restrictionValue(["restriction:motorcar": "only_straight_on"]) == "only_straight_on")
        #expect(profile.restrictionValue(["restriction:hgv": "no_left_turn"]) == nil)
        #expect(profile.restrictionValue(["restriction": "no_left_turn", "except": "bicycle;psv"]) == nil)
        #expect(TurnRestriction(restriction: "no_entry_sign", fromWay: 1, viaNode: 2, toWay: 3)?.kind == .no)
        #expect(TurnRestriction(restriction: "give_way", fromWay: 1, viaNode: 2, toWay: 3) == nil)
    }
}
