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
            (["oneway:motor_vehicle": "yes"], true, false), (["oneway:vehicle": "-1"], false, true),
            (["oneway:motor_vehicle": "yes", "oneway:psv": "no"], true, true),
            (["motor_vehicle:forward": "no"], false, true), (["motorcar:backward": "private"], true, false),
            (["access:forward": "no", "psv": "yes"], true, true),
            (["motor_vehicle:forward": "no", "motor_vehicle": "yes"], false, true),
            (["motor_vehicle:forward": "yes", "access": "no"], true, false),
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
            (["access": "psv"], true), (["access": "foot"], false), (["motor_vehicle": "official"], false),
            (["access": "minibus"], false), (["service": "emergency_access"], false), (["area": "yes"], false),
            (["impassable": "yes"], false), (["status": "impassable"], false), (["area": "no"], true),
            (["construction": "secondary", "access": "yes"], false), (["construction": "minor"], true),
            (["construction": "no"], true),
            // Aleksanterinkatu, Helsinki: closed to motor vehicles one way, one-way for them the other.
            (["motor_vehicle:forward": "no", "oneway:motor_vehicle": "yes"], false),
            (["motor_vehicle:forward": "no", "motor_vehicle:backward": "no"], false),
        ] as [([String: String], Bool)])
    func letsACabThroughWhereTaxisMayGo(tags: [String: String], open: Bool) {
        #expect((TravelProfile.taxi.rule(forWay: tags.merging(["highway": "service"]) { $1 }) != nil) == open)
    }

    @Test(
        arguments: [
            (["surface": "cobblestone"], 30.0), (["surface": "sett"], 32), (["surface": "asphalt"], 32),
            (["smoothness": "bad"], 32), (["smoothness": "very_bad"], 20),
            (["surface": "mud", "smoothness": "bad"], 10),
        ] as [([String: String], Double)])
    func capsTheSpeedOnRoughSurfaces(tags: [String: String], kmh: Double) {
        let rule = TravelProfile.taxi.rule(forWay: tags.merging(["highway": "secondary", "maxspeed": "40"]) { $1 })
        #expect(rule.map { abs($0.speedKmh - kmh) < 0.01 } == true, "\(tags) -> \(String(describing: rule))")
    }

    @Test(
        arguments: [
            (["service": "parking_aisle"], 7.5), (["service": "driveway"], 7.5), (["service": "alley"], 7.5),
            (["service": "yard"], 15), (["width": "3"], 7.5), (["width": "3.5 m"], 9), (["width": "5.5"], 12),
            (["width": "8"], 15), (["lanes": "1"], 7.5), (["lanes": "2"], 15), (["lanes": "1", "oneway": "yes"], 15),
            (["width": "2.5", "oneway": "yes"], 15), (["side_road": "yes"], 12),
        ] as [([String: String], Double)])
    func slowsServiceRoadsAndNarrowTwoWayRoads(tags: [String: String], kmh: Double) {
        let rule = TravelProfile.taxi.rule(forWay: tags.merging(["highway": "service"]) { $1 })
        #expect(rule.map { abs($0.speedKmh - kmh) < 0.01 } == true, "\(tags) -> \(String(describing: rule))")
    }

    @Test func chargesForSignalsSignsAndGatesThatStandClosed() {
        let profile = TravelProfile.taxi
        #expect(
            profile.passageDelay(node: ["highway": "traffic_signals"]) == .init(milliseconds: 2_000, direction: .both))
        #expect(
            profile.passageDelay(node: ["highway": "traffic_signals", "traffic_signals:direction": "forward"])
                == .init(milliseconds: 2_000, direction: .forward))
        #expect(
            profile.passageDelay(node: ["highway": "traffic_signals", "direction": "backward"])
                == .init(milliseconds: 2_000, direction: .backward))
        #expect(profile.passageDelay(node: ["barrier": "gate"]) == .init(milliseconds: 60_000, direction: .both))
        #expect(profile.passageDelay(node: ["barrier": "lift_gate"])?.milliseconds == 60_000)
        #expect(profile.passageDelay(node: ["barrier": "gate", "access": "permissive"]) == nil)
        #expect(profile.passageDelay(node: ["barrier": "cattle_grid"]) == nil)
        #expect(profile.passageDelay(node: ["highway": "crossing"]) == nil)
        #expect(profile.passageDelay(node: ["highway": "stop"]) == .init(milliseconds: 2_000, direction: .both))
        #expect(
            profile.passageDelay(node: ["highway": "give_way", "direction": "forward"])
                == .init(milliseconds: 1_000, direction: .forward))
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
