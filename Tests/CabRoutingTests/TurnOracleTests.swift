import CabGeo
import CabRoutingBench
import CabTestSupport
import Testing

@testable import CabRouting

/// Seeded random street grids where every block is its own way, with random via-node and via-way restrictions
/// (`no_*` and `only_*`, up to two via ways): the fast router equals plain Dijkstra on every query path, and
/// every route Dijkstra finds is one a cab may drive (no barred sequence, every `only_*` obeyed, no U-turn
/// except at a dead end), checked on the ways the route drives, not on the graph's structure.
@Suite struct TurnOracleTests {
    /// A restriction as the ways it names, in driving order (`from`, via..., `to`).
    struct Drawn {
        var kind: TurnRestriction.Kind
        var ways: [Int64]
        /// Where the last via way (or the from way) ends and the to way starts.
        var turnNode: Int64
    }

    struct City {
        var builder: RoadNetworkBuilder
        var restrictions: [Drawn]
        /// How many directions a car may leave each node by (OSM id).
        var departures: [Int64: Int]
        /// The two nodes of each way (one block each).
        var ends: [Int64: (Int64, Int64)]
    }

    static func city(rows: Int, cols: Int, seed: UInt64, restrictions count: Int) -> City {
        var random = SplitMix64(seed: seed)
        var builder = RoadNetworkBuilder()
        builder.sourceFingerprint = seed
        let step = 100.0 / 111_195.0
        for r in 0..<rows {
            for c in 0..<cols {
                let jitter = { (random.nextDouble() - 0.5) * step * 0.2 }
                builder.addNode(
                    id: Int64(r * cols + c + 1),
                    coordinate: Coordinate(
                        latitude: 47 + Double(r) * step + jitter(), longitude: 9.5 + Double(c) * step / 0.682 + jitter()
                    ))
            }
        }
        var ends: [Int64: (Int64, Int64)] = [:]
        var departures: [Int64: Int] = [:]
        var waysAt: [Int64: [Int64]] = [:]
        var forward: [Int64: Bool] = [:]
        var backward: [Int64: Bool] = [:]
        func block(_ a: Int64, _ b: Int64) {
            guard random.nextDouble() >= 0.05 else { return }
            let id = Int64(ends.count + 1)
            let roll = random.nextDouble()
            var tags = ["highway": roll < 0.05 ? "primary" : "residential"]
            if roll > 0.85 { tags["oneway"] = roll > 0.925 ? "yes" : "-1" }
            builder.addWay(id: id, nodeIDs: [a, b], tags: tags)
            ends[id] = (a, b)
            forward[id] = tags["oneway"] != "-1"
            backward[id] = tags["oneway"] != "yes"
            if forward[id]! { departures[a, default: 0] += 1 }
            if backward[id]! { departures[b, default: 0] += 1 }
            waysAt[a, default: []].append(id)
            waysAt[b, default: []].append(id)
        }
        for r in 0..<rows {
            for c in 0..<cols {
                let n = Int64(r * cols + c + 1)
                if c + 1 < cols { block(n, n + 1) }
                if r + 1 < rows { block(n, n + Int64(cols)) }
            }
        }
        // Random drivable walks of 2 to 4 ways: from, up to two via ways, to.
        var drawn: [Drawn] = []
        // Drawn from the ways in id order: a dictionary's own order changes with each process's hash seed, and so
        // did the city (seed 23 drew two `only` restrictions of one from and via way to two different ways once in
        // a CI run: no route can obey both).
        let wayIDs = ends.keys.sorted()
        while drawn.count < count {
            guard let first = wayIDs.randomElement(using: &random), let (a, b) = ends[first] else { break }
            var node = forward[first]! ? b : a
            var walk = [first]
            var turnNode = node
            let length = 2 + Int(random.next() % 3)
            while walk.count < length {
                turnNode = node
                let options = (waysAt[node] ?? []).filter { w in
                    w != walk.last! && (ends[w]!.0 == node ? forward[w]! : backward[w]!)
                }
                guard let next = options.randomElement(using: &random) else { break }
                walk.append(next)
                node = ends[next]!.0 == node ? ends[next]!.1 : ends[next]!.0
            }
            // One restriction per from and via ways: two (an `only` to one way and another to a different one)
            // could contradict each other, which real data may but this oracle cannot judge.
            guard walk.count == length, !drawn.contains(where: { $0.ways.dropLast() == walk.dropLast() }) else {
                continue
            }
            let kind: TurnRestriction.Kind = random.next() % 3 == 0 ? .only : .no
            let via: TurnRestriction.Via
            if length == 2 {
                let (fa, fb) = ends[walk[0]]!
                let (ta, tb) = ends[walk[1]]!
                via = .node([fa, fb].first { $0 == ta || $0 == tb }!)  // consecutive blocks share a node
            } else {
                via = .ways(Array(walk[1..<(length - 1)]))
            }
            builder.addRestriction(TurnRestriction(kind: kind, fromWay: walk[0], via: via, toWay: walk.last!))
            drawn.append(Drawn(kind: kind, ways: walk, turnNode: turnNode))
        }
        return City(builder: builder, restrictions: drawn, departures: departures, ends: ends)
    }

    /// What is wrong with the way a route drives (the ways of its start piece, its edges and its end piece).
    static func violations(of path: DijkstraRouter.Path, _ endpoints: RouteEndpoints, in graph: RoadGraph, city: City)
        -> [String]
    {
        var driven: [(way: Int64, head: Int64)] = []
        func drive(piece: Int, reversed: Bool) {
            let way = graph.pieceWayIDs[piece]
            let (a, b) = city.ends[way]!
            driven.append((way, reversed ? a : b))
        }
        // A route from or to the junction a point stands on drives none of the piece it was snapped to.
        if !path.source.atJunction { drive(piece: endpoints.start.piece, reversed: path.source.isReversed) }
        for edge in path.edges { drive(piece: graph.piece(ofEdge: edge), reversed: graph.edgeRunsBackwards(edge)) }
        if !path.target.atJunction { drive(piece: endpoints.end.piece, reversed: path.target.isReversed) }
        var found: [String] = []
        let ways = driven.map(\.way)
        for i in 0..<(driven.count - 1) where ways[i] == ways[i + 1] && city.departures[driven[i].head] != 1 {
            found.append("U-turn on way \(ways[i]) at node \(driven[i].head), no dead end")
        }
        for r in city.restrictions {
            let prefix = r.ways.dropLast()
            for i in ways.indices
            where i + prefix.count < ways.count && Array(ways[i..<(i + prefix.count)]) == Array(prefix) {
                // Driving the from way away from the turn is not the restricted manoeuvre.
                guard driven[i + prefix.count - 1].head == r.turnNode else { continue }
                let next = ways[i + prefix.count]
                if r.kind == .no && next == r.ways.last! { found.append("drove barred \(r.ways)") }
                if r.kind == .only && next != r.ways.last! { found.append("left \(r.ways) along \(next)") }
            }
        }
        return found
    }

    @Test(arguments: [(21, Int.max), (22, 1), (23, Int.max)] as [(UInt64, Int)])
    func routesAreLegalAndFastEqualsDijkstra(seed: UInt64, guardRings: Int) throws {
        var city = Self.city(rows: 18, cols: 22, seed: seed, restrictions: 60)
        city.builder.uTurnGuardRings = guardRings
        let (graph, report) = city.builder.buildReporting()
        #expect(report.appliedRestrictions > 40 && report.viaChainStates > 10 && report.brokenViaChains == 0)
        try FastRouterRoadGraphTests.checkAgainstDijkstra(graph, pairs: 150, seed: seed)
        let snapper = Snapper(graph: graph)
        var dijkstra = DijkstraRouter(graph: graph)
        let points = FastRouterRoadGraphTests.randomPoints(graph, count: 401, seed: seed).map { try? snapper.snap($0) }
        var illegal: [String] = []
        var routed = 0
        for i in 0..<400 {
            guard let a = points[i], let b = points[i + 1], a.piece != b.piece else { continue }
            let endpoints = RouteEndpoints(start: a, end: b, in: graph)
            guard let path = dijkstra.shortestPath(from: endpoints.sources, to: endpoints.targets) else { continue }
            routed += 1
            illegal += Self.violations(of: path, endpoints, in: graph, city: city)
        }
        #expect(routed > 300)
        #expect(illegal.isEmpty, "\(illegal.count) illegal routes of \(routed), e.g. \(illegal.prefix(3))")
        // The batched many-to-one with snapping (the dispatch path) on the same graph.
        let index = FastRouterIndex(graph: ContractionGraph(roadGraph: graph))
        let router = FastRouter(index: index, graph: graph)
        let coordinates = FastRouterRoadGraphTests.randomPoints(graph, count: 41, seed: seed + 100)
        let batch = coordinates.map { try? snapper.snap($0) }
        let pickup = try #require(batch.last ?? nil)
        let expected = batch.prefix(40).map { point in
            point.flatMap { dijkstra.durationMilliseconds(RouteEndpoints(start: $0, end: pickup, in: graph)) }
        }
        let drivers = Array(coordinates.prefix(40))
        #expect(try router.durationsMilliseconds(from: drivers, to: pickup.query, snappingWith: snapper) == expected)
    }
}
