import CabBench
import CabGeo
import CabImport
import CabOSM
import CabRouting
import Foundation

/// `cab bench turns`: what the turn rules (via-way restrictions, no U-turns but at dead ends, turn costs) cost on
/// one map, against the graph without them built from the same import in the same process: graph size, build and
/// preprocessing time, point-to-point, geometry and many-to-one medians, how many routes change, and how many
/// routes still turn back at a junction that is no dead end. With `--pairs-out` it also writes seeded random
/// routes for `scripts/osrm-peer.py` to compare with OSRM. Figures are printed, never asserted.
enum BenchTurnsCommand {
    static let flags: [Arguments.Flag] = [
        .init(name: "map", valueName: "FILE", help: "OSM PBF extract to import and measure"),
        .init(name: "pairs", valueName: "N", help: "random point pairs per variant (default 3000)"),
        .init(name: "seed", valueName: "N", help: "seed of the random pairs (default 19)"),
        .init(name: "pairs-out", valueName: "FILE", help: "write N routes (JSON lines) for scripts/osrm-peer.py"),
        .init(name: "pairs-from", valueName: "FILE", help: "with --pairs-out: route the from/to pairs of FILE instead"),
        .init(name: "json", valueName: nil, help: "print one JSON object"),
    ]

    static let usage = """
        usage: cab bench turns --map FILE.osm.pbf [--pairs N] [--seed N] [--pairs-out FILE [--pairs-from FILE]] [--json]

        Builds the road graph of FILE four ways from one import: via-node restrictions only with U-turns allowed
        (before), the turn rules without turn costs with two guard rings (what cab served before turn costs) and
        with every junction connected to a restriction turn-aware, and the turn rules with turn costs (every
        junction split per arrival: what cab serves on maps of up to RoadNetworkBuilder.turnCostJunctionLimit
        junctions); contracts each and times the same queries on each. One thread. Printed, never asserted.

        \(Arguments.describe(flags))
        """

    struct Variant {
        var name: String
        var rules: RoadNetworkBuilder.TurnRules
        var rings: Int
        /// Turns cost by their angle (the builder's default limit), else never.
        var turnCosts = false
        /// The graph `cab serve` builds by default.
        var served = false
    }

    static func run(_ arguments: [String]) -> Never {
        let args = Arguments(arguments, flags: flags, usage: usage)
        guard args.positional.isEmpty else { Console.fail("bench turns takes no positional arguments\n\n\(usage)") }
        guard let map = args.value("map") else { Console.fail("--map FILE.osm.pbf is required\n\n\(usage)") }
        guard FileManager.default.isReadableFile(atPath: map) else { Console.fail("cannot read \(map)", code: 66) }
        let pairs = args.integer("pairs", default: 3_000, in: 10...1_000_000)
        let seed = UInt64(args.integer("seed", default: 19, in: 0...Int(Int32.max)))
        var handler: RoadImport
        do {
            handler = RoadImport(sourceFingerprint: try MapFingerprint.ofFile(atPath: map))
            // Node tags too, as `cab import` reads them: barriers.
            try PBFReader(path: map).read(into: &handler)
        } catch {
            Console.fail("cannot import \(map): \(error)", code: 65)
        }
        let variants = [
            Variant(name: "before (via nodes, U-turns)", rules: .viaNodesOnly, rings: 0),
            Variant(name: "turn rules, 2 rings, no turn costs", rules: .full, rings: 2),
            Variant(name: "turn rules, every connected junction, no turn costs", rules: .full, rings: Int.max),
            Variant(
                name: "turn rules and turn costs (served)", rules: .full, rings: RoadNetworkBuilder().uTurnGuardRings,
                turnCosts: true, served: true),
        ]
        var rows: [[String: Any]] = []
        var baseline: [Int?] = []
        var served: (graph: RoadGraph, router: FastRouter, snapper: Snapper)? = nil
        for variant in variants {
            var row = measure(variant, builder: handler.builder, pairs: pairs, seed: seed, baseline: &baseline)
            row["variant"] = variant.name
            rows.append(row)
            if variant.served {
                let graph = handler.builder.build()
                let index = FastRouterIndex(graph: ContractionGraph(roadGraph: graph))
                served = (graph, FastRouter(index: index, graph: graph), Snapper(graph: graph))
            }
        }
        if let path = args.value("pairs-out"), let served {
            // The same routes without a cab's rights (taxi/psv access, turn restrictions a cab is exempt from,
            // bus gates), to tell them apart in the comparison: a second import, since the import keeps only the
            // restrictions and node delays that apply to its own profile.
            var carImport = RoadImport(profile: carProfile)
            do {
                try PBFReader(path: map).read(into: &carImport)
            } catch {
                Console.fail("cannot import \(map): \(error)", code: 65)
            }
            carImport.turnCostJunctionLimit = handler.turnCostJunctionLimit
            let carGraph = carImport.build().graph
            let carIndex = FastRouterIndex(graph: ContractionGraph(roadGraph: carGraph))
            let car = (carGraph, FastRouter(index: carIndex, graph: carGraph), Snapper(graph: carGraph))
            let given = args.value("pairs-from").map(readPairs)
            writePairs(to: path, count: pairs, seed: seed, given: given, served, car: car)
        }
        let notes = handler.notes
        let object: [String: Any] = [
            "map": (map as NSString).lastPathComponent, "build": BenchFormat.buildMode, "pairs": pairs,
            "seed": seed, "via_way_relations": notes.viaWayRestrictions, "restrictions_passed": notes.restrictions,
            "variants": rows,
        ]
        if args.has("json") {
            Console.line(BenchFormat.jsonLine(object))
        } else {
            Console.line(
                "cab bench turns on \(object["map"]!) (\(BenchFormat.buildMode), \(pairs) pairs, seed \(seed)); "
                    + "\(notes.restrictions) restriction relations passed, \(notes.viaWayRestrictions) via ways")
            for row in rows { Console.line(text(row)) }
        }
        exitProcess(0)
    }

    static func text(_ row: [String: Any]) -> String {
        func f(_ key: String) -> String { "\(row[key] ?? "-")" }
        return """
              \(f("variant")): \(f("nodes")) nodes, \(f("edges")) edges, \(f("turn_aware_junctions")) turn-aware \
            junctions, \(f("via_chain_states")) chain states; restrictions applied \(f("applied")), ignored \
            \(f("ignored")), broken via chains \(f("broken_chains"))
                build \(f("build_ms")) ms, preprocess \(f("preprocess_s")) s; p2p \(f("p2p_us")) us, geometry \
            \(f("geometry_us")) us, many-to-one 20 \(f("many20_us")) us; routes changed vs before \
            \(f("changed_share")); Dijkstra routes turning back at a junction that is no dead end: \
            \(f("u_turns"))/\(f("checked"))
            """
    }

    static func measure(
        _ variant: Variant, builder input: RoadNetworkBuilder, pairs: Int, seed: UInt64, baseline: inout [Int?]
    ) -> [String: Any] {
        var builder = input
        builder.turnRules = variant.rules
        builder.uTurnGuardRings = variant.rings
        if !variant.turnCosts { builder.turnCostJunctionLimit = -1 }
        let clock = ContinuousClock()
        var buildTimes: [Double] = []
        var built: (graph: RoadGraph, report: RoadNetworkBuilder.Report)? = nil
        for _ in 0..<3 {
            let start = clock.now
            built = builder.buildReporting()
            buildTimes.append(seconds(clock.now - start))
        }
        let (graph, report) = built!  // three builds above
        let start = clock.now
        let index = FastRouterIndex(graph: ContractionGraph(roadGraph: graph))
        let preprocess = seconds(clock.now - start)
        let router = FastRouter(index: index, graph: graph)
        let snapper = Snapper(graph: graph)
        // The same coordinates for every variant (the pieces are the same; the nodes are not).
        let points = randomPoints(graph, count: pairs + 1, seed: seed).map { try? snapper.snap($0) }
        var p2p: [Double] = []
        var geometry: [Double] = []
        var durations: [Int?] = []
        for i in 0..<pairs {
            guard let a = points[i], let b = points[i + 1] else {
                durations.append(nil)
                continue
            }
            let endpoints = RouteEndpoints(start: a, end: b, in: graph)
            var t = clock.now
            let d = router.durationMilliseconds(endpoints)
            p2p.append(seconds(clock.now - t))
            durations.append(d)
            t = clock.now
            _ = try? router.route(endpoints)
            geometry.append(seconds(clock.now - t))
        }
        var many: [Double] = []
        let snapped = points.compactMap { $0 }
        for round in 0..<min(200, snapped.count / 21) {
            let drivers = Array(snapped[(round * 21)..<(round * 21 + 20)])
            let t = clock.now
            _ = router.durationsMilliseconds(from: drivers, to: snapped[round * 21 + 20])
            many.append(seconds(clock.now - t))
        }
        var changed = 0
        if baseline.isEmpty {
            baseline = durations
        } else {
            changed = zip(baseline, durations).filter { $0 != $1 }.count
        }
        let (uTurns, checked) = countUTurns(graph, points: points, limit: min(pairs, 1_000))
        return [
            "nodes": graph.nodeCount, "edges": graph.edgeCount, "turn_aware_junctions": report.turnAwareJunctions,
            "via_chain_states": report.viaChainStates, "applied": report.appliedRestrictions,
            "ignored": report.ignoredRestrictions, "broken_chains": report.brokenViaChains,
            "build_ms": round(buildTimes.min()! * 1000, 2), "preprocess_s": round(preprocess, 3),
            "p2p_us": round(median(p2p) * 1e6, 2), "geometry_us": round(median(geometry) * 1e6, 2),
            "many20_us": round(median(many) * 1e6, 2),
            "changed_share": String(format: "%.2f %%", Double(changed) * 100 / Double(max(1, pairs))),
            "u_turns": uTurns, "checked": checked,
        ]
    }

    /// Dijkstra routes (of the first `limit` pairs) that drive a piece and straight back along it at a junction
    /// with another way out.
    static func countUTurns(_ graph: RoadGraph, points: [SnappedPoint?], limit: Int) -> (Int, Int) {
        // The directions a car may leave each OSM node by, over all its copies.
        var departures: [Int64: Set<UInt32>] = [:]
        for e in 0..<graph.edgeCount {
            departures[graph.nodeOSMIDs[graph.edgeSource(e)], default: []].insert(graph.edgePieces[e])
        }
        var dijkstra = DijkstraRouter(graph: graph)
        var found = 0
        var checked = 0
        for i in 0..<limit {
            guard let a = points[i], let b = points[i + 1] else { continue }
            let endpoints = RouteEndpoints(start: a, end: b, in: graph)
            guard let path = dijkstra.shortestPath(from: endpoints.sources, to: endpoints.targets) else { continue }
            checked += 1
            for (x, y) in zip(path.edges, path.edges.dropFirst()) where graph.edgePieces[x] == graph.edgePieces[y] ^ 1 {
                if departures[graph.nodeOSMIDs[graph.edgeTarget(x)]]?.count ?? 0 > 1 {
                    found += 1
                    break
                }
            }
        }
        return (found, checked)
    }

    /// A private car: the taxi profile without the rights of a cab (`taxi=*`, `psv=*`, and `access=psv` or
    /// `taxi` closes the way), as OSRM's car profile.
    static var carProfile: TravelProfile {
        var profile = TravelProfile.taxi
        profile.accessKeys.removeAll { $0 == "taxi" || $0 == "psv" }
        profile.barringAccessValues.formUnion(["psv", "taxi"])
        profile.onewayOverrideKeys.removeAll { $0 == "oneway:taxi" || $0 == "oneway:psv" }
        profile.restrictionKeys.removeAll { $0 == "restriction:taxi" }
        profile.restrictionExemptions.subtract(["taxi", "psv"])
        return profile
    }

    /// The from/to pairs of a file `writePairs` wrote (to route the very pairs another build routed).
    static func readPairs(_ path: String) -> [(Coordinate, Coordinate)] {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            Console.fail("cannot read \(path)", code: 66)
        }
        return text.split(separator: "\n").compactMap { line in
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                let from = object["from"] as? [Double], let to = object["to"] as? [Double], from.count == 2,
                to.count == 2
            else { return nil }
            return (Coordinate(latitude: from[0], longitude: from[1]), Coordinate(latitude: to[0], longitude: to[1]))
        }
    }

    /// Writes seeded random routes between junctions of the largest component, as JSON lines, with the same route
    /// for a private car as `car_distance_m` and `car_polyline`.
    static func writePairs(
        to path: String, count: Int, seed: UInt64, given: [(Coordinate, Coordinate)]? = nil,
        _ served: (graph: RoadGraph, router: FastRouter, snapper: Snapper),
        car: (graph: RoadGraph, router: FastRouter, snapper: Snapper)
    ) {
        // Each junction once, in an order of their own: a junction split per arrival (or copied for a destination
        // zone) has several graph nodes at one place and would otherwise be drawn more often the more the graph
        // splits it, and graph node numbers differ between builds; so the pairs stay the same as long as the
        // junctions of the largest component do. Only junctions a private car reaches too: a peer that routes
        // cars (OSRM's car profile) has no answer for a point on a bus-and-taxi street, or on a one-way street
        // that only a cab's contraflow right joins to the rest.
        let carJunctions = Set(car.graph.routableNodeCoordinates)
        let nodes = Set(served.graph.routableNodeCoordinates).filter(carJunctions.contains).sorted {
            ($0.latitude, $0.longitude) < ($1.latitude, $1.longitude)
        }
        guard nodes.count >= 2 else { Console.fail("the map has no routable junctions", code: 65) }
        var random = SplitMix64(seed: seed)
        var lines = ""
        for i in 0..<(given?.count ?? count) {
            let drawn = (
                nodes[Int(random.next() % UInt64(nodes.count))], nodes[Int(random.next() % UInt64(nodes.count))]
            )
            let (from, to) = given?[i] ?? drawn
            var object: [String: Any] = ["from": [from.latitude, from.longitude], "to": [to.latitude, to.longitude]]
            if let endpoints = try? served.snapper.endpoints(from: from, to: to),
                let route = try? served.router.route(endpoints)
            {
                object["distance_m"] = round(route.distanceMeters, 1)
                object["duration_s"] = round(route.durationSeconds, 1)
                object["polyline"] = Polyline.encode(route.geometry)
            }
            if let endpoints = try? car.snapper.endpoints(from: from, to: to),
                let route = try? car.router.route(endpoints)
            {
                object["car_distance_m"] = round(route.distanceMeters, 1)
                object["car_polyline"] = Polyline.encode(route.geometry)
            }
            lines += BenchFormat.jsonLine(object) + "\n"
        }
        do {
            try lines.write(toFile: path, atomically: true, encoding: .utf8)
        } catch {
            Console.fail("cannot write \(path): \(error)", code: 73)
        }
    }

    static func randomPoints(_ graph: RoadGraph, count: Int, seed: UInt64) -> [Coordinate] {
        // Shape points are the same whatever the turn rules (graph nodes are not).
        let nodes = graph.coordinates
        guard !nodes.isEmpty else { return [] }
        var random = SplitMix64(seed: seed)
        // Shape points moved by up to ~30 m, so that points fall part-way along pieces too.
        return (0..<count).map { _ in
            let n = nodes[Int(random.next() % UInt64(nodes.count))]
            return Coordinate(
                latitude: n.latitude + (random.nextDouble() - 0.5) * 0.0005,
                longitude: n.longitude + (random.nextDouble() - 0.5) * 0.0005)
        }
    }

    static func median(_ values: [Double]) -> Double {
        guard !values.isEmpty else { return .nan }
        return values.sorted()[values.count / 2]
    }

    static func round(_ value: Double, _ places: Int) -> Double { BenchFormat.round(value, places) }

    static func seconds(_ d: Duration) -> Double {
        Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
    }
}
