/// How a vehicle uses roads: which ways it may drive, in which directions, and how fast.
///
/// `.taxi` follows OSRM's car profile for speeds, with a cab's rights: ways closed to cars but open to taxis or
/// public service vehicles (`taxi=yes`, `psv=yes`, `taxi=designated`) are open to it.
public struct TravelProfile: Sendable, Hashable {
    /// Typical speed in km/h for each routable `highway` value; other values are not driven.
    public var highwaySpeedsKmh: [String: Double]
    /// Share of a posted `maxspeed` actually driven (OSRM uses 0.8).
    public var maxspeedFactor: Double
    /// Access keys from most to least specific for this vehicle; the first one present decides.
    public var accessKeys: [String]
    /// Access values that bar the way.
    public var barringAccessValues: Set<String>
    /// `oneway:*` keys that override `oneway` for this vehicle, most specific first.
    public var onewayOverrideKeys: [String]
    /// Restriction keys that apply to this vehicle, most specific first (`restriction:taxi`, ..., `restriction`).
    public var restrictionKeys: [String]
    /// Values of `except` on a restriction that exempt this vehicle.
    public var restrictionExemptions: Set<String>
    /// What turning back along the road just driven costs where it is allowed (at a dead end); OSRM's car profile
    /// charges the same 20 s (`u_turn_penalty`). U-turns anywhere else are not driven (see docs/turns.md).
    public var uTurnPenaltyMilliseconds: UInt32

    /// Creates a profile.
    public init(
        highwaySpeedsKmh: [String: Double], maxspeedFactor: Double = 0.8, accessKeys: [String],
        barringAccessValues: Set<String>, onewayOverrideKeys: [String], restrictionKeys: [String],
        restrictionExemptions: Set<String>, uTurnPenaltyMilliseconds: UInt32 = 20_000
    ) {
        self.uTurnPenaltyMilliseconds = uTurnPenaltyMilliseconds
        self.highwaySpeedsKmh = highwaySpeedsKmh
        self.maxspeedFactor = maxspeedFactor
        self.accessKeys = accessKeys
        self.barringAccessValues = barringAccessValues
        self.onewayOverrideKeys = onewayOverrideKeys
        self.restrictionKeys = restrictionKeys
        self.restrictionExemptions = restrictionExemptions
    }

    /// A cab: OSRM's car speeds; taxi and psv rights; car and taxi turn restrictions.
    public static let taxi = TravelProfile(
        highwaySpeedsKmh: [
            "motorway": 90, "motorway_link": 45, "trunk": 85, "trunk_link": 40, "primary": 65, "primary_link": 30,
            "secondary": 55, "secondary_link": 25, "tertiary": 40, "tertiary_link": 20, "unclassified": 25,
            "residential": 25, "living_street": 10, "service": 15,
        ],
        accessKeys: ["taxi", "psv", "motorcar", "motor_vehicle", "vehicle", "access"],
        barringAccessValues: [
            "no", "private", "agricultural", "forestry", "emergency", "military", "delivery", "customers", "bus",
            "hgv", "permit",
        ],
        onewayOverrideKeys: ["oneway:taxi", "oneway:psv"],
        restrictionKeys: ["restriction:taxi", "restriction:motorcar", "restriction"],
        restrictionExemptions: ["taxi", "psv", "motorcar"])

    /// `barrier` values a car drives through (OSRM's car profile lets the same ones pass); any other barrier on a
    /// road blocks it, unless the node's own access tags let this vehicle through (`psv=yes` on a bus gate).
    public static let passableBarriers: Set<String> = [
        "cattle_grid", "border_control", "toll_booth", "sally_port", "gate", "lift_gate", "no", "entrance",
        "height_restrictor", "arch",
    ]

    /// True when a node with these tags stops this vehicle (a bollard, a block, a fence across the road).
    public func blocks(barrier tags: [String: String]) -> Bool {
        guard let value = tags["barrier"], !Self.passableBarriers.contains(value) else { return false }
        if let key = accessKeys.first(where: { tags[$0] != nil }), let access = tags[key] {
            return barringAccessValues.contains(access)
        }
        return true
    }

    /// The OSM keys this profile reads from ways; the builder keeps only these.
    public static let wayKeys: Set<String> = [
        "highway", "maxspeed", "oneway", "oneway:taxi", "oneway:psv", "junction", "access", "vehicle",
        "motor_vehicle", "motorcar", "psv", "taxi",
    ]

    /// How this profile may drive a way.
    public struct WayRule: Sendable, Hashable {
        /// True when the way may be driven in its node order.
        public var forward: Bool
        /// True when the way may be driven against its node order.
        public var backward: Bool
        /// The speed driven, in km/h.
        public var speedKmh: Double
    }

    /// True when the way's `highway` class is one this profile drives (before access and oneway).
    public func drivesHighwayClass(_ tags: [String: String]) -> Bool {
        tags["highway"].map { highwaySpeedsKmh[$0] != nil } ?? false
    }

    /// How the way may be driven; nil when not at all (class, access or direction bars it).
    public func rule(forWay tags: [String: String]) -> WayRule? {
        guard let highway = tags["highway"], let classSpeed = highwaySpeedsKmh[highway] else { return nil }
        if let key = accessKeys.first(where: { tags[$0] != nil }), let value = tags[key],
            barringAccessValues.contains(value)
        {
            return nil
        }
        var forward = true
        var backward = true
        let implied = highway == "motorway" || tags["junction"] == "roundabout" || tags["junction"] == "circular"
        let onewayValue = onewayOverrideKeys.lazy.compactMap { tags[$0] }.first ?? tags["oneway"]
        switch onewayValue {
        case "yes", "true", "1": backward = false
        case "-1", "reverse": forward = false
        case "reversible", "alternating": return nil
        case "no", "false", "0": break
        default: if implied { backward = false }
        }
        let speed = tags["maxspeed"].flatMap(Self.parseMaxspeedKmh).map { $0 * maxspeedFactor } ?? classSpeed
        return WayRule(forward: forward, backward: backward, speedKmh: max(speed, 1))
    }

    /// The restriction value that applies to this vehicle (`no_left_turn`, ...); nil when none does.
    public func restrictionValue(_ tags: [String: String]) -> String? {
        if let except = tags["except"],
            except.split(separator: ";").contains(where: { restrictionExemptions.contains(String($0)) })
        {
            return nil
        }
        return restrictionKeys.lazy.compactMap { tags[$0] }.first
    }

    /// Parses an OSM `maxspeed` in km/h: "50", "50 mph", "20 knots"; nil for "none", "signals", zone values
    /// such as "DE:urban", and anything unparsable (the class default applies then).
    public static func parseMaxspeedKmh(_ value: String) -> Double? {
        let first = value.split(separator: ";").first.map(String.init) ?? value
        var digits = Substring(first)
        while digits.first == " " { digits.removeFirst() }
        let numberPart = digits.prefix { $0.isNumber || $0 == "." }
        guard let number = Double(numberPart), number > 0 else { return nil }
        let unit = digits.dropFirst(numberPart.count).filter { $0 != " " }
        switch unit {
        case "", "km/h", "kmh", "kph": return number
        case "mph": return number * 1.609_344
        case "knots": return number * 1.852
        default: return nil
        }
    }
}
