import CabGeo
import Testing

@testable import CabRouting

/// Roads open only to traffic with a destination on them (`motor_vehicle=destination`): a cab may start or end a
/// route there, never drive through (OSRM's car profile keeps through routes off them too).
@Suite struct DestinationFixtureTests {
    /// The street a-b-c (with the side street b-g) is for destination traffic; the way round from x to y is
    /// x-a-d-f-c-y. (Routes from x and to y: a point on a junction may snap onto any road there, this one too.)
    static let block = """
        x a   b   c y
              g

          d       f
        """

    func blockMap(_ street: [String: String] = ["motor_vehicle": "destination"]) -> AsciiMap {
        var map = AsciiMap(Self.block, spacingMeters: 50)
        for way in ["ab", "bc", "bg"] { map.way(way, street) }
        for way in ["xa", "ad", "df", "fc", "cy"] { map.way(way) }
        return map
    }

    @Test func drivesRoundAStreetForDestinationTrafficButStartsAndEndsThere() throws {
        let open = blockMap([:])
        #expect(abs(try open.route("x", "y").distanceMeters - open.length("xabcy")) < 1)
        let map = blockMap()
        // Through the street from x to y, or back, is barred: round by d and f.
        #expect(abs(try map.route("x", "y").distanceMeters - map.length("xadfcy")) < 1)
        #expect(abs(try map.route("y", "x").distanceMeters - map.length("ycfdax")) < 1)
        // In to an address on it, out from one, and from one to another.
        #expect(abs(try map.route("x", "g").distanceMeters - map.length("xabg")) < 1)
        #expect(abs(try map.route("g", "y").distanceMeters - map.length("gbcy")) < 1)
        #expect(abs(try map.route("g", "d").distanceMeters - map.length("gbad")) < 1)
        let halfway = map.between("a", "b", 0.5)
        #expect(abs(try map.route(halfway, map.at("y")).distanceMeters - map.length("bcy") - 100) < 1)
        let further = map.between("b", "c", 0.5)
        #expect(abs(try map.route(map.at("d"), further).distanceMeters - map.length("dab") - 100) < 1)
        #expect(abs(try map.route(halfway, further).distanceMeters - 200) < 1)
        // b and g inside, and copies of a, b, c and g (inbound) and of a and c (starts).
        #expect(map.builder.buildReporting().report.destinationZoneNodes == 8)
        // A point on the street snaps onto it, like any other.
        let graph = map.graph()
        let snapped = try Snapper(graph: graph).snap(map.between("b", "g", 0.5))
        #expect(graph.pieceWayIDs[snapped.piece] == 3)
    }

    @Test func letsACabThroughWhereBusesAndTaxisMayDrive() throws {
        let map = blockMap(["motor_vehicle": "destination", "psv": "yes"])
        #expect(abs(try map.route("x", "y").distanceMeters - map.length("xabcy")) < 1)
        #expect(map.builder.buildReporting().report.destinationZoneNodes == 0)
    }

    @Test func fastRoutesEqualDijkstraAroundAndIntoTheZone() throws {
        let map = blockMap()
        let graph = map.graph()
        let router = FastRouter(index: FastRouterIndex(graph: ContractionGraph(roadGraph: graph)), graph: graph)
        var dijkstra = DijkstraRouter(graph: graph)
        let snapper = Snapper(graph: graph)
        let points =
            Array("xabcdfgy").map { map.at($0) } + [
                map.between("a", "b", 0.3), map.between("b", "c", 0.6), map.between("b", "g", 0.5),
                map.between("d", "f", 0.5),
            ]
        for from in points {
            for to in points {
                let endpoints = try snapper.endpoints(from: from, to: to)
                let slow = try dijkstra.route(endpoints)
                #expect(router.durationMilliseconds(endpoints) == slow.durationMilliseconds)
                #expect(try router.route(endpoints).durationMilliseconds == slow.durationMilliseconds)
            }
        }
    }
}
