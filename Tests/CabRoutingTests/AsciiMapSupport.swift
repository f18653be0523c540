import CabGeo
import CabRouting

/// A road fixture drawn as text, OSRM's habit: every letter is a node, one character column or line apart is
/// `spacingMeters`; ways are strings of letters. Digits and punctuation are ignored, so `.` draws nothing.
///
/// ```
/// let map = AsciiMap("""
///     a b c
///     d   e
///     """)
/// map.way("abc", ["oneway": "yes"])
/// ```
struct AsciiMap {
    let spacingMeters: Double
    private(set) var nodes: [Character: Coordinate] = [:]
    private(set) var builder = RoadNetworkBuilder()
    private var wayIDs: [String: Int64] = [:]
    static let origin = Coordinate(latitude: 47.1, longitude: 9.5)

    /// A map without turn costs unless `turnCosts` is set: each fixture draws the rule it checks, and its
    /// durations are the pieces' and that rule's alone (`TurnCostFixtureTests` switch turn costs on).
    init(_ drawing: String, spacingMeters: Double = 100, turnCosts: Bool = false) {
        self.spacingMeters = spacingMeters
        if !turnCosts { builder.turnCostJunctionLimit = -1 }
        let projection = LocalProjection(referenceLatitude: Self.origin.latitude)
        for (row, line) in drawing.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            for (column, char) in line.enumerated() where char.isLetter {
                nodes[char] = Coordinate(
                    latitude: Self.origin.latitude - Double(row) * spacingMeters / projection.metersPerDegreeLatitude,
                    longitude: Self.origin.longitude + Double(column) * spacingMeters
                        / projection.metersPerDegreeLongitude)
            }
        }
        for (char, coordinate) in nodes.sorted(by: { $0.key < $1.key }) {
            builder.addNode(id: Self.nodeID(char), coordinate: coordinate)
        }
    }

    static func nodeID(_ char: Character) -> Int64 { Int64(char.unicodeScalars.first!.value) }

    /// Adds a way through the letters of `path` (residential unless `tags` say otherwise).
    mutating func way(_ path: String, _ tags: [String: String] = [:]) {
        let id = Int64(wayIDs.count + 1)
        wayIDs[path] = id
        builder.addWay(
            id: id, nodeIDs: path.map(Self.nodeID), tags: ["highway": "residential"].merging(tags) { $1 })
    }

    /// Adds a restriction between two ways drawn earlier.
    mutating func restriction(_ value: String, from: String, via: Character, to: String) {
        builder.addRestriction(
            TurnRestriction(restriction: value, fromWay: wayIDs[from]!, viaNode: Self.nodeID(via), toWay: wayIDs[to]!)!)
    }

    /// Adds a restriction through a chain of via ways drawn earlier (in the order given).
    mutating func restriction(_ value: String, from: String, via: [String], to: String) {
        builder.addRestriction(
            TurnRestriction(
                restriction: value, fromWay: wayIDs[from]!, via: .ways(via.map { wayIDs[$0]! }), toWay: wayIDs[to]!)!)
    }

    /// Tags the node drawn as `char` (barriers, traffic signals and gates matter to routing), as `RoadImport`
    /// reads node tags.
    mutating func node(_ char: Character, _ tags: [String: String]) {
        builder.addNodeTags(id: Self.nodeID(char), tags: tags, profile: .taxi)
    }

    /// How many pieces around a restricted junction ban U-turns too (`RoadNetworkBuilder.uTurnGuardRings`).
    var uTurnGuardRings: Int {
        get { builder.uTurnGuardRings }
        set { builder.uTurnGuardRings = newValue }
    }

    /// The length in metres of the straight lines through the letters of `path` (`"abc"`: a to b to c).
    func length(_ path: String) -> Double {
        zip(path, path.dropFirst()).reduce(0) { $0 + at($1.0).distanceMeters(to: at($1.1)) }
    }

    /// The node drawn as `char`.
    func at(_ char: Character) -> Coordinate { nodes[char]! }

    /// A point `fraction` of the way from `a` to `b`, `offsetMeters` north of the line.
    func between(_ a: Character, _ b: Character, _ fraction: Double, offsetMeters: Double = 0) -> Coordinate {
        let p = at(a)
        let q = at(b)
        let projection = LocalProjection(referenceLatitude: p.latitude)
        return Coordinate(
            latitude: p.latitude + (q.latitude - p.latitude) * fraction + offsetMeters
                / projection.metersPerDegreeLatitude,
            longitude: p.longitude + (q.longitude - p.longitude) * fraction)
    }

    func graph() -> RoadGraph { builder.build(profile: .taxi) }

    /// Routes between two coordinates with plain Dijkstra.
    func route(_ from: Coordinate, _ to: Coordinate, largestComponentOnly: Bool = true) throws -> Route {
        let graph = graph()
        let snapper = Snapper(graph: graph, largestComponentOnly: largestComponentOnly)
        var router = DijkstraRouter(graph: graph)
        return try router.route(snapper.endpoints(from: from, to: to))
    }

    /// Routes between two drawn nodes.
    func route(_ from: Character, _ to: Character) throws -> Route { try route(at(from), at(to)) }
}
