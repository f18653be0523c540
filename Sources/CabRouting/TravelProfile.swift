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
    /// Access values that open the way only to traffic with a destination on it (`destination`): no through
    /// routes (OSRM's car profile lets a route use them only where it starts or ends, too).
    public var destinationAccessValues: Set<String> = ["destination"]
    /// `oneway:*` keys that override `oneway` for this vehicle, most specific first.
    public var onewayOverrideKeys: [String]
    /// Restriction keys that apply to this vehicle, most specific first (`restriction:taxi`, ..., `restriction`).
    public var restrictionKeys: [String]
    /// Values of `except` on a restriction that exempt this vehicle.
    public var restrictionExemptions: Set<String>
    /// What turning back along the road just driven costs where it is allowed (at a dead end); OSRM's car profile
    /// charges the same 20 s (`u_turn_penalty`). U-turns anywhere else are not driven (see docs/turns.md).
    public var uTurnPenaltyMilliseconds: UInt32
    /// The highest speed in km/h driven on each `surface` (or `smoothness`) value; others do not slow the car.
    public var surfaceSpeedCapsKmh: [String: Double]
    /// Share of the speed driven on `service` roads of these kinds (parking aisles, driveways, alleys).
    public var serviceSpeedFactors: [String: Double]
    /// `service` values that close the way (`emergency_access`).
    public var closedServiceValues: Set<String>
    /// What passing a node tagged `highway=traffic_signals` costs (OSRM's car profile: 2 s).
    public var trafficSignalPenaltyMilliseconds: UInt32
    /// What passing a stop sign (`highway=stop`) costs (OSRM's car profile: 2 s).
    public var stopPenaltyMilliseconds: UInt32
    /// What passing a give-way sign (`highway=give_way`) costs (OSRM's car profile: 1 s).
    public var giveWayPenaltyMilliseconds: UInt32
    /// What passing a gate this vehicle may open costs (OSRM's car profile: 60 s for `gate` and `lift_gate`).
    public var gatePenaltyMilliseconds: UInt32
    /// True when narrow two-way roads (`width` under 6 m, a single lane) are driven slower (see `slowdown`).
    public var slowsNarrowTwoWayRoads: Bool
    /// The most a turn at a junction costs (OSRM's car profile: 7.5 s): a sigmoid of the turn's angle, next to
    /// nothing straight on, 2.1 s for a square turn away from oncoming traffic, 5.4 s for one across it (see
    /// `TurnCostModel`). 0 turns turn costs off. Charging them needs every junction split per arrival (an
    /// edge-based graph), which `RoadNetworkBuilder.turnCostJunctionLimit` bounds.
    public var turnPenaltyMilliseconds: UInt32 = 7_500
    /// How much the sigmoid favours turns away from oncoming traffic (OSRM's `turn_bias`, 1.075).
    public var turnBias = 1.075
    /// What a turn across oncoming traffic costs on top, tapering to nothing for a slight one (OSRM's car
    /// profile: 2 s); not paid at U-turns, roundabouts or joints.
    public var oncomingTurnPenaltyMilliseconds: UInt32 = 2_000
    /// True where traffic keeps left (the United Kingdom, Japan, ...): a right turn crosses oncoming traffic
    /// there. The default, false, is right-hand traffic.
    public var drivesOnLeft = false

    /// Creates a profile.
    public init(
        highwaySpeedsKmh: [String: Double], maxspeedFactor: Double = 0.8, accessKeys: [String],
        barringAccessValues: Set<String>, onewayOverrideKeys: [String], restrictionKeys: [String],
        restrictionExemptions: Set<String>, uTurnPenaltyMilliseconds: UInt32 = 20_000,
        surfaceSpeedCapsKmh: [String: Double] = [:], serviceSpeedFactors: [String: Double] = [:],
        closedServiceValues: Set<String> = [], trafficSignalPenaltyMilliseconds: UInt32 = 0,
        stopPenaltyMilliseconds: UInt32 = 0, giveWayPenaltyMilliseconds: UInt32 = 0,
        gatePenaltyMilliseconds: UInt32 = 0,
        slowsNarrowTwoWayRoads: Bool = false
    ) {
        self.stopPenaltyMilliseconds = stopPenaltyMilliseconds
        self.giveWayPenaltyMilliseconds = giveWayPenaltyMilliseconds
        self.slowsNarrowTwoWayRoads = slowsNarrowTwoWayRoads
        self.uTurnPenaltyMilliseconds = uTurnPenaltyMilliseconds
        self.surfaceSpeedCapsKmh = surfaceSpeedCapsKmh
        self.serviceSpeedFactors = serviceSpeedFactors
        self.closedServiceValues = closedServiceValues
        self.trafficSignalPenaltyMilliseconds = trafficSignalPenaltyMilliseconds
        self.gatePenaltyMilliseconds = gatePenaltyMilliseconds
        self.highwaySpeedsKmh = highwaySpeedsKmh
        self.maxspeedFactor = maxspeedFactor
        self.accessKeys = accessKeys
        self.barringAccessValues = barringAccessValues
        self.onewayOverrideKeys = onewayOverrideKeys
        self.restrictionKeys = restrictionKeys
        self.restrictionExemptions = restrictionExemptions
    }

    /// A cab: OSRM's car speeds, surface caps and slow service roads; taxi and psv rights; car and taxi turn
    /// restrictions; 2 s per traffic signal or stop sign, 1 s per give-way sign and 60 s per gate, as OSRM's car
    /// profile charges.
    public static let taxi = TravelProfile(
        highwaySpeedsKmh: [
            "motorway": 90, "motorway_link": 45, "trunk": 85, "trunk_link": 40, "primary": 65, "primary_link": 30,
            "secondary": 55, "secondary_link": 25, "tertiary": 40, "tertiary_link": 20, "unclassified": 25,
            "residential": 25, "living_street": 10, "service": 15,
        ],
        accessKeys: ["taxi", "psv", "motorcar", "motor_vehicle", "vehicle", "access"],
        barringAccessValues: [
            "no", "private", "agricultural", "forestry", "emergency", "military", "delivery", "customers", "bus",
            "hgv", "permit", "foot", "restricted", "official", "emergency_vehicle", "minibus", "share_taxi",
        ],
        onewayOverrideKeys: ["oneway:taxi", "oneway:psv", "oneway:motorcar", "oneway:motor_vehicle", "oneway:vehicle"],
        restrictionKeys: ["restriction:taxi", "restriction:motorcar", "restriction"],
        restrictionExemptions: ["taxi", "psv", "motorcar"],
        // OSRM's car profile's caps, read off its table: rough surfaces are driven slowly whatever the limit.
        surfaceSpeedCapsKmh: [
            "cement": 80, "compacted": 80, "fine_gravel": 80, "paving_stones": 60, "metal": 60, "bricks": 60,
            "grass": 40, "wood": 40, "sett": 40, "grass_paver": 40, "gravel": 40, "unpaved": 40, "ground": 40,
            "dirt": 40, "pebblestone": 40, "tartan": 40, "cobblestone": 30, "clay": 30, "earth": 20, "stone": 20,
            "rocky": 20, "sand": 20, "laterite": 15, "mud": 10, "ice": 20, "snow": 30,
            // smoothness values
            "intermediate": 80, "bad": 40, "very_bad": 20, "horrible": 10, "very_horrible": 5,
        ],
        // Half speed through parking aisles, driveways and alleys: a cab takes them to reach a door, not as a
        // short cut (OSRM's car profile ranks them the same way).
        serviceSpeedFactors: [
            "alley": 0.5, "parking": 0.5, "parking_aisle": 0.5, "driveway": 0.5, "drive-through": 0.5,
            "drive-thru": 0.5,
        ],
        closedServiceValues: ["emergency_access"], trafficSignalPenaltyMilliseconds: 2_000,
        stopPenaltyMilliseconds: 2_000, giveWayPenaltyMilliseconds: 1_000, gatePenaltyMilliseconds: 60_000,
        slowsNarrowTwoWayRoads: true)

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

    /// `barrier` values that slow a car down by `gatePenaltyMilliseconds` (someone opens them).
    public static let gateBarriers: Set<String> = ["gate", "lift_gate"]

    /// What passing a node with these tags costs this vehicle, in milliseconds, and in which direction along the
    /// way (`traffic_signals:direction` or `direction`); nil when nothing. A stop or give-way sign mapped on the
    /// junction itself is paid on every way into it (OSRM spares the major road; that needs the arrival). Nodes
    /// that block (`blocks(barrier:)`) are not asked.
    public func passageDelay(node tags: [String: String]) -> NodeDelay? {
        var milliseconds: UInt32 = 0
        if let highway = tags["highway"] {
            if highway == "traffic_signals" {
                milliseconds = trafficSignalPenaltyMilliseconds
            } else if highway == "stop" {
                milliseconds = stopPenaltyMilliseconds
            } else if highway == "give_way" {
                milliseconds = giveWayPenaltyMilliseconds
            }
        }
        if milliseconds > 0 {
            let direction: NodeDelay.Direction
            switch tags["traffic_signals:direction"] ?? tags["direction"] {
            case "forward": direction = .forward
            case "backward": direction = .backward
            default: direction = .both
            }
            return NodeDelay(milliseconds: milliseconds, direction: direction)
        }
        // A gate with access tags of its own is one this vehicle is waved through or that stands open.
        if let barrier = tags["barrier"], Self.gateBarriers.contains(barrier), gatePenaltyMilliseconds > 0,
            !accessKeys.contains(where: { tags[$0] != nil })
        {
            return NodeDelay(milliseconds: gatePenaltyMilliseconds, direction: .both)
        }
        return nil
    }

    /// `construction` values that leave a road open (small works; OSRM's car profile lets the same ones pass).
    public static let openConstructionValues: Set<String> = ["no", "minor", "widening"]

    /// The OSM keys this profile reads from ways; the builder keeps only these.
    public static let wayKeys: Set<String> = [
        "highway", "maxspeed", "oneway", "oneway:taxi", "oneway:psv", "oneway:motorcar", "oneway:motor_vehicle",
        "oneway:vehicle", "junction", "access", "vehicle", "motor_vehicle", "motorcar", "psv", "taxi", "surface",
        "smoothness", "service", "area", "impassable", "status", "width", "lanes", "side_road", "construction",
        "access:forward", "access:backward", "vehicle:forward", "vehicle:backward", "motor_vehicle:forward",
        "motor_vehicle:backward", "motorcar:forward", "motorcar:backward", "psv:forward", "psv:backward",
        "taxi:forward", "taxi:backward",
    ]

    /// How this profile may drive a way.
    public struct WayRule: Sendable, Hashable {
        /// True when the way may be driven in its node order.
        public var forward: Bool
        /// True when the way may be driven against its node order.
        public var backward: Bool
        /// The speed driven, in km/h.
        public var speedKmh: Double
        /// True when the way is open only to traffic with a destination on it (`motor_vehicle=destination`,
        /// ...): a route may start or end there but not drive through (see `DestinationZones`).
        public var destinationOnly = false
        /// True on a roundabout (`junction=roundabout` or `circular`): turns onto and off it cross no oncoming
        /// traffic.
        public var roundabout = false
    }

    /// True when the way's `highway` class is one this profile drives (before access and oneway).
    public func drivesHighwayClass(_ tags: [String: String]) -> Bool {
        tags["highway"].map { highwaySpeedsKmh[$0] != nil } ?? false
    }

    /// How the way may be driven; nil when not at all (class, access or direction bars it).
    public func rule(forWay tags: [String: String]) -> WayRule? {
        guard let highway = tags["highway"], let classSpeed = highwaySpeedsKmh[highway] else { return nil }
        // The outline of a square or a car park (`area=yes`), a road marked impassable, an emergency access, a
        // road under construction (`construction=*` but for small works: `no`, `minor`, `widening`).
        if tags["area"] == "yes" || tags["impassable"] == "yes" || tags["status"] == "impassable" {
            return nil
        }
        if let works = tags["construction"], !Self.openConstructionValues.contains(works) { return nil }
        if let service = tags["service"], closedServiceValues.contains(service) { return nil }
        let (forwardAccess, backwardAccess) = access(tags)
        var forward = forwardAccess.map { !barringAccessValues.contains($0) } ?? true
        var backward = backwardAccess.map { !barringAccessValues.contains($0) } ?? true
        guard forward || backward else { return nil }
        let roundabout = tags["junction"] == "roundabout" || tags["junction"] == "circular"
        let implied = highway == "motorway" || roundabout
        let onewayValue = onewayOverrideKeys.lazy.compactMap { tags[$0] }.first ?? tags["oneway"]
        switch onewayValue {
        case "yes", "true", "1": backward = false
        case "-1", "reverse": forward = false
        case "reversible", "alternating": return nil
        case "no", "false", "0": break
        default: if implied { backward = false }
        }
        guard forward || backward else { return nil }
        var speed = tags["maxspeed"].flatMap(Self.parseMaxspeedKmh).map { $0 * maxspeedFactor } ?? classSpeed
        for key in ["surface", "smoothness"] {
            if let cap = tags[key].flatMap({ surfaceSpeedCapsKmh[$0] }) { speed = min(speed, cap) }
        }
        speed *= slowdown(tags, bothWays: forward && backward)
        let openAccess = (forward ? [forwardAccess] : []) + (backward ? [backwardAccess] : [])
        return WayRule(
            forward: forward, backward: backward, speedKmh: max(speed, 1),
            destinationOnly: openAccess.contains { $0.map(destinationAccessValues.contains) ?? false },
            roundabout: roundabout)
    }

    /// The access values that apply to this vehicle in and against the way's node order, as OSRM's car profile
    /// reads them: for each key of `accessKeys` in turn, `KEY:forward` and `KEY:backward`, else `KEY`, until both
    /// directions have a value (`motor_vehicle:forward=no` closes one direction to a car; `psv=yes` before it
    /// opens both to a cab). nil where no key says anything.
    func access(_ tags: [String: String]) -> (forward: String?, backward: String?) {
        var forward: String?
        var backward: String?
        for key in accessKeys {
            forward = forward ?? tags[key + ":forward"]
            backward = backward ?? tags[key + ":backward"]
            if let common = tags[key] {
                forward = forward ?? common
                backward = backward ?? common
            }
            if forward != nil && backward != nil { break }
        }
        return (forward, backward)
    }

    /// The share of its speed a way is driven at: the strongest of the service-road factor, `side_road=yes` (0.8)
    /// and a narrow two-way road where oncoming cars must give way (`width` 3 m or less 0.5, under 4 m 0.6, under
    /// 5 m 0.75, under 6 m 0.8, a single lane 0.5), as OSRM's car profile ranks them.
    func slowdown(_ tags: [String: String], bothWays: Bool) -> Double {
        var factor = tags["service"].flatMap { serviceSpeedFactors[$0] } ?? 1
        if tags["side_road"] == "yes" || tags["side_road"] == "rotary" { factor = min(factor, 0.8) }
        guard bothWays, slowsNarrowTwoWayRoads else { return factor }
        if let width = tags["width"].flatMap(Self.leadingNumber) {
            let narrow: Double =
                switch width {
                case ...3: 0.5
                case ..<4: 0.6
                case ..<5: 0.75
                case ..<6: 0.8
                default: 1
                }
            factor = min(factor, narrow)
        }
        if let lanes = tags["lanes"].flatMap(Self.leadingNumber), lanes <= 1 { factor = min(factor, 0.5) }
        return factor
    }

    /// The number a tag value starts with ("3.5", "3 m", "2;3"); nil when it starts with none.
    static func leadingNumber(_ value: String) -> Double? {
        Double(value.prefix { $0.isNumber || $0 == "." })
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

    /// A delay for passing a node (a traffic signal, a gate), in one or both directions along its way.
    public struct NodeDelay: Sendable, Hashable {
        /// Which drivers along the way pay it.
        public enum Direction: Sendable, Hashable {
            /// Both.
            case both
            /// Those driving in the way's node order.
            case forward
            /// Those driving against it.
            case backward
        }
        /// The delay.
        public var milliseconds: UInt32
        /// Who pays it.
        public var direction: Direction

        /// Creates a delay.
        public init(milliseconds: UInt32, direction: Direction) {
            self.milliseconds = milliseconds
            self.direction = direction
        }
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
