import CabGeo
import CabRouting

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Issue 3's routing measurements on one road graph, as a library function that `cab bench route` prints.
///
/// Preprocessing is timed once; queries are timed one by one with `ContinuousClock` and summarised by their
/// median. Query points are random graph nodes of the largest component moved up to ~30 m off the road, snapped
/// before the clock starts (except for many-to-one, whose figure includes snapping every driver and the pickup).
public enum RoutingBenchmark {
    /// What to measure.
    public struct Configuration: Sendable {
        /// Random point pairs for the point-to-point figures.
        public var pairs: Int
        /// How many of those pairs plain Dijkstra also answers (it is ~1000× slower).
        public var dijkstraPairs: Int
        /// Pickups for each many-to-one figure.
        public var manyToOneRounds: Int
        /// Seed of the random points.
        public var seed: UInt64
        /// How the index is built.
        public var index: FastRouterIndex.Configuration

        /// Creates a configuration.
        public init(
            pairs: Int = 10_000, dijkstraPairs: Int = 1_000, manyToOneRounds: Int = 1_000, seed: UInt64 = 1,
            index: FastRouterIndex.Configuration = .init()
        ) {
            self.pairs = pairs
            self.dijkstraPairs = dijkstraPairs
            self.manyToOneRounds = manyToOneRounds
            self.seed = seed
            self.index = index
        }
    }

    /// The figures; `Codable` keys are the snake_case names `cab bench route --json` prints.
    public struct Result: Sendable, Codable, Equatable {
        /// Graph nodes.
        public var nodes: Int
        /// Graph edges.
        public var edges: Int
        /// Seconds spent building the graph (import or generation), when the caller measured it.
        public var importSeconds: Double?
        /// Seconds of preprocessing: contraction plus hub labels.
        public var preprocessSeconds: Double
        /// Seconds of the contraction alone.
        public var contractionSeconds: Double
        /// Seconds computing hub labels (0 when none).
        public var hubLabelSeconds: Double
        /// Shortcuts the contraction added.
        public var shortcuts: Int
        /// Average hubs per label, nil without labels.
        public var averageLabelSize: Double?
        /// Nodes with labels (the upper hierarchy when the budget does not cover every node), nil without labels.
        public var labelledNodes: Int?
        /// Megabytes the labels take, nil without labels.
        public var labelMegabytes: Double?
        /// Peak resident memory of the process up to the end of preprocessing, in MB (`getrusage`).
        public var peakRSSMegabytes: Double
        /// Peak resident memory of the process after the queries too (snapper, Dijkstra scratch), in MB.
        public var peakRSSAfterQueriesMegabytes: Double
        /// Pairs timed.
        public var pairs: Int
        /// Pairs also timed with plain Dijkstra.
        public var dijkstraPairs: Int
        /// Median point-to-point duration query, the router's default (labels when present), microseconds.
        public var p2pMedianMicroseconds: Double
        /// Median point-to-point duration query on the contraction hierarchy alone, microseconds.
        public var p2pHierarchyMedianMicroseconds: Double
        /// Median plain Dijkstra duration query on the first `dijkstraPairs` pairs, microseconds.
        public var p2pDijkstraMedianMicroseconds: Double
        /// Median route with unpacked path and full geometry, microseconds.
        public var p2pGeometryMedianMicroseconds: Double
        /// Median of 20 drivers to one pickup, snapping included, microseconds.
        public var manyToOne20MedianMicroseconds: Double
        /// Median of 100 drivers to one pickup, snapping included, microseconds.
        public var manyToOne100MedianMicroseconds: Double
        /// Median of 20 already snapped drivers to one snapped pickup (the routing part alone), microseconds.
        public var manyToOne20RoutingMedianMicroseconds: Double
        /// Median time to snap one coordinate, microseconds.
        public var snapMedianMicroseconds: Double
        /// Per climb of the many-to-one 20 figure (labels only): unlabelled nodes settled, border nodes reached,
        /// label entries of those border nodes, and entries scanned (dominated border nodes skipped).
        public var climbSettled: Double?
        public var climbBorderNodes: Double?
        public var climbBorderEntries: Double?
        public var climbScannedEntries: Double?
        /// The many-to-one 20 and 100 figures again, right after, with the climbs searched instead of read from
        /// the precomputed lists (`LabelClimbs`; what this code did before them); nil with labels on every node.
        public var manyToOne20SearchedMedianMicroseconds: Double? = nil
        public var manyToOne100SearchedMedianMicroseconds: Double? = nil
        /// The geometry figure again, with every shortcut split into its halves (no `UnpackedShortcuts` lists).
        public var p2pGeometryByHalvesMedianMicroseconds: Double? = nil
        /// Same-run baselines of the batched queries (`UpperLabelQuery.overlapsMisses` off: drivers snapped and
        /// scanned one at a time, routes rebuilt without touching ahead), timed round by round alternately
        /// with the figures above (even rounds one way, odd rounds the other, fresh random points each round), so
        /// that the machine's load falls on both alike.
        public var manyToOne20OneByOneMedianMicroseconds: Double? = nil
        public var manyToOne100OneByOneMedianMicroseconds: Double? = nil
        public var manyToOne20RoutingOneByOneMedianMicroseconds: Double? = nil
        public var p2pGeometryOneByOneMedianMicroseconds: Double? = nil
        /// Snapping 20 random points: all together (`Snapper.snap(_:)` over the list) and one at a time, alternately.
        public var snap20TogetherMedianMicroseconds: Double? = nil
        public var snap20OneByOneMedianMicroseconds: Double? = nil
        /// Megabytes of the precomputed climbs (part of `labelMegabytes`) and of the unpacked shortcut lists.
        public var climbListMegabytes: Double? = nil
        public var unpackedShortcutMegabytes: Double? = nil
        /// Same-run variants of this round's many-to-one, by name (e.g. `20_chunk_0`: 20 drivers with every query's
        /// labels touched at once, the previous round), median microseconds, timed round-robin with each other.
        public var variants: [String: Double]? = nil
        /// Dijkstra median over the router's median (same pairs).
        public var speedup: Double { p2pDijkstraMedianMicroseconds / max(p2pMedianMicroseconds, 1e-9) }

        enum CodingKeys: String, CodingKey {
            case nodes, edges, shortcuts, pairs
            case importSeconds = "import_s"
            case preprocessSeconds = "preprocess_s"
            case contractionSeconds = "contraction_s"
            case hubLabelSeconds = "hub_labels_s"
            case averageLabelSize = "average_label_size"
            case labelledNodes = "labelled_nodes"
            case labelMegabytes = "label_mb"
            case peakRSSMegabytes = "peak_rss_mb"
            case peakRSSAfterQueriesMegabytes = "peak_rss_after_queries_mb"
            case dijkstraPairs = "dijkstra_pairs"
            case p2pMedianMicroseconds = "p2p_median_us"
            case p2pHierarchyMedianMicroseconds = "p2p_ch_median_us"
            case p2pDijkstraMedianMicroseconds = "p2p_dijkstra_median_us"
            case p2pGeometryMedianMicroseconds = "p2p_geometry_median_us"
            case manyToOne20MedianMicroseconds = "many_to_one_20_median_us"
            case manyToOne100MedianMicroseconds = "many_to_one_100_median_us"
            case manyToOne20RoutingMedianMicroseconds = "many_to_one_20_routing_median_us"
            case snapMedianMicroseconds = "snap_median_us"
            case manyToOne20SearchedMedianMicroseconds = "many_to_one_20_searched_climbs_median_us"
            case manyToOne100SearchedMedianMicroseconds = "many_to_one_100_searched_climbs_median_us"
            case p2pGeometryByHalvesMedianMicroseconds = "p2p_geometry_by_halves_median_us"
            case manyToOne20OneByOneMedianMicroseconds = "many_to_one_20_one_by_one_median_us"
            case manyToOne100OneByOneMedianMicroseconds = "many_to_one_100_one_by_one_median_us"
            case manyToOne20RoutingOneByOneMedianMicroseconds = "many_to_one_20_routing_one_by_one_median_us"
            case p2pGeometryOneByOneMedianMicroseconds = "p2p_geometry_one_by_one_median_us"
            case snap20TogetherMedianMicroseconds = "snap_20_together_median_us"
            case snap20OneByOneMedianMicroseconds = "snap_20_one_by_one_median_us"
            case climbListMegabytes = "climb_list_mb"
            case unpackedShortcutMegabytes = "unpacked_shortcut_mb"
            case variants
            case climbSettled = "climb_settled"
            case climbBorderNodes = "climb_border_nodes"
            case climbBorderEntries = "climb_border_entries"
            case climbScannedEntries = "climb_scanned_entries"
        }
    }

    /// A preprocessed graph: the index and what building it cost.
    public struct Preprocessed: Sendable {
        /// The index (hierarchy, labels when they fit, edge ends).
        public let index: FastRouterIndex
        /// Seconds of the contraction.
        public let contractionSeconds: Double
        /// Seconds computing hub labels.
        public let hubLabelSeconds: Double
        /// Peak resident memory of the process right after preprocessing, in MB.
        public let peakRSSMegabytes: Double
    }

    /// Builds the fast-routing index of `graph`, timed.
    /// - Complexity: the contraction plus the hub labels.
    public static func preprocess(_ graph: RoadGraph, configuration: FastRouterIndex.Configuration = .init())
        -> Preprocessed
    {
        preprocess(ContractionGraph(roadGraph: graph), configuration: configuration)
    }

    /// Builds the fast-routing index from the contraction input alone, timed, as an import that has written
    /// its road graph out and dropped it would: the input is released as soon as the builder holds its arcs.
    /// - Complexity: the contraction plus the hub labels.
    public static func preprocess(
        _ input: consuming ContractionGraph, configuration: FastRouterIndex.Configuration = .init()
    ) -> Preprocessed {
        let clock = ContinuousClock()
        let start = clock.now
        let edgeFrom = ContractionBuffer(input.edges.map(\.from))
        let edgeTo = ContractionBuffer(input.edges.map(\.to))
        var builder = ContractionBuilder(graph: input, configuration: configuration.contraction)  // consumes it
        let hierarchy = builder.build()
        let contracted = clock.now
        let labels =
            configuration.buildsHubLabels
            ? HubLabels(hierarchy: hierarchy, entryLimit: configuration.hubLabelEntryLimit) : nil
        let labelled = clock.now
        let index = FastRouterIndex(hierarchy: hierarchy, labels: labels, edgeFrom: edgeFrom, edgeTo: edgeTo)
        return Preprocessed(
            index: index, contractionSeconds: seconds(contracted - start),
            hubLabelSeconds: seconds(labelled - contracted),
            peakRSSMegabytes: peakResidentMegabytes())
    }

    /// Times every query kind on `graph` with an index already built by `preprocess`.
    /// - Complexity: `pairs` fast queries and `dijkstraPairs` Dijkstra searches.
    public static func measure(
        on graph: RoadGraph, preprocessed: Preprocessed, importSeconds: Double? = nil,
        configuration: Configuration = .init()
    ) -> Result {
        let clock = ContinuousClock()
        let index = preprocessed.index
        let router = FastRouter(index: index, graph: graph)
        let hierarchyOnly = FastRouter(
            index: FastRouterIndex(
                hierarchy: index.hierarchy, labels: nil, edgeFrom: index.edgeFrom, edgeTo: index.edgeTo),
            graph: graph)
        let snapper = Snapper(graph: graph)
        var random = SplitMix64(seed: configuration.seed)
        let points = randomPoints(graph, count: configuration.pairs + 1, random: &random)
        let snapped = points.compactMap { try? snapper.snap($0) }
        var pairs: [RouteEndpoints] = []
        for i in 0..<max(0, snapped.count - 1) {
            pairs.append(RouteEndpoints(start: snapped[i], end: snapped[i + 1], in: graph))
        }

        var sink = 0
        let fast = pairs.map { pair in time(clock) { sink &+= router.durationMilliseconds(pair) ?? 0 } }
        let viaHierarchy = pairs.map { pair in time(clock) { sink &+= hierarchyOnly.durationMilliseconds(pair) ?? 0 } }
        // Even pairs with the batched/touching code, odd ones without it (the same-run baseline), alternately.
        var geometry: [Double] = []
        var geometryOneByOne: [Double] = []
        for (i, pair) in pairs.enumerated() {
            router.labelQuery?.overlapsMisses = i % 2 == 0
            let t = time(clock) { sink &+= (try? router.route(pair))?.geometry.count ?? 0 }
            if i % 2 == 0 { geometry.append(t) } else { geometryOneByOne.append(t) }
        }
        router.labelQuery?.overlapsMisses = true
        var dijkstra = DijkstraRouter(graph: graph)
        let slow = pairs.prefix(configuration.dijkstraPairs).map { pair in
            time(clock) { sink &+= dijkstra.durationMilliseconds(pair) ?? 0 }
        }
        func manyToOne(_ drivers: Int, on router: FastRouter) -> [Double] {
            (0..<configuration.manyToOneRounds).map { _ in
                let group = randomPoints(graph, count: drivers + 1, random: &random)
                let starts = Array(group.prefix(drivers))
                return time(clock) {
                    let found = try? router.durationsMilliseconds(
                        from: starts, to: group[drivers], snappingWith: snapper)
                    for d in found ?? [] { sink &+= d ?? 0 }
                }
            }
        }
        /// `manyToOne` twice as many rounds, alternately batched and one by one: (batched, one by one).
        func manyToOnePaired(_ drivers: Int) -> ([Double], [Double]) {
            var batched: [Double] = []
            var oneByOne: [Double] = []
            for round in 0..<(2 * configuration.manyToOneRounds) {
                router.labelQuery?.overlapsMisses = round % 2 == 0
                let group = randomPoints(graph, count: drivers + 1, random: &random)
                let starts = Array(group.prefix(drivers))
                let t = time(clock) {
                    let found = try? router.durationsMilliseconds(
                        from: starts, to: group[drivers], snappingWith: snapper)
                    for d in found ?? [] { sink &+= d ?? 0 }
                }
                if round % 2 == 0 { batched.append(t) } else { oneByOne.append(t) }
            }
            router.labelQuery?.overlapsMisses = true
            return (batched, oneByOne)
        }
        let before = router.labelQuery?.statistics
        let (many20, many20OneByOne) = manyToOnePaired(20)
        let work = router.labelQuery.map { query -> UpperLabelQuery.Statistics in
            var w = query.statistics
            let b = before ?? .init()
            (w.climbs, w.settled, w.borderNodes) = (
                w.climbs - b.climbs, w.settled - b.settled, w.borderNodes - b.borderNodes
            )
            (w.borderEntries, w.scannedEntries) = (
                w.borderEntries - b.borderEntries, w.scannedEntries - b.scannedEntries
            )
            return w
        }
        func perClimb(_ value: (UpperLabelQuery.Statistics) -> Int) -> Double? {
            work.map { Double(value($0)) / Double(max($0.climbs, 1)) }
        }
        let (many100, many100OneByOne) = manyToOnePaired(100)
        var routingOnly: [Double] = []
        var routingOnlyOneByOne: [Double] = []
        for round in 0..<(2 * configuration.manyToOneRounds) {
            router.labelQuery?.overlapsMisses = round % 2 == 0
            let group = (0..<21).map { snapped[(round * 21 + $0) % snapped.count] }
            let starts = Array(group.prefix(20))
            let t = time(clock) {
                for d in router.durationsMilliseconds(from: starts, to: group[20]) { sink &+= d ?? 0 }
            }
            if round % 2 == 0 { routingOnly.append(t) } else { routingOnlyOneByOne.append(t) }
        }
        router.labelQuery?.overlapsMisses = true
        var variants: [String: Double]?
        if let query = router.labelQuery, (index.labels?.climbByteCount ?? 0) > 0 {
            var previousSnapper = snapper
            previousSnapper.refinesAfterWalk = false
            let setups: [(name: String, inline: Bool)] = [("previous_round", false), ("this_round", true)]
            var times: [String: [Double]] = [:]
            for drivers in [20, 100] {
                for round in 0..<(setups.count * configuration.manyToOneRounds / 2) {
                    let setup = setups[round % setups.count]
                    query.climbsInline = setup.inline
                    let group = randomPoints(graph, count: drivers + 1, random: &random)
                    let starts = Array(group.prefix(drivers))
                    let t = time(clock) {
                        let found = try? router.durationsMilliseconds(
                            from: starts, to: group[drivers], snappingWith: setup.inline ? snapper : previousSnapper)
                        for d in found ?? [] { sink &+= d ?? 0 }
                    }
                    times["\(drivers)_\(setup.name)", default: []].append(t)
                }
            }
            query.climbsInline = true
            // Routes with geometry: this round (the edges' route records); the edges read from the graph's arrays
            // (the previous round, less the touching passes that did not pay); without touching the unpacked lists
            // ahead; neither.
            let routeSetups: [(name: String, touches: Bool, records: Bool)] = [
                ("geometry_this_round", true, true), ("geometry_edge_arrays", true, false),
                ("geometry_untouched", false, true), ("geometry_untouched_edge_arrays", false, false),
            ]
            // Every pair once with every setup, in as many passes over all pairs (so a pair's caches are cold again
            // when it comes back), the setups rotating from pair to pair.
            for pass in routeSetups.indices {
                for (i, pair) in pairs.enumerated() {
                    let setup = routeSetups[(i + pass) % routeSetups.count]
                    (query.touchesRoutes, query.readsRouteEdges) = (setup.touches, setup.records)
                    let t = time(clock) { sink &+= (try? router.route(pair))?.geometry.count ?? 0 }
                    times[setup.name, default: []].append(t)
                }
            }
            (query.touchesRoutes, query.readsRouteEdges) = (true, true)
            variants = times.mapValues(median)
        }
        // Same-run baselines for this session's changes: climbs searched, shortcuts split into halves.
        var searched20: [Double]?
        var searched100: [Double]?
        if let labels = index.labels, labels.climbByteCount > 0 {
            let searching = FastRouter(
                index: FastRouterIndex(
                    hierarchy: index.hierarchy, labels: labels.withoutClimbs, edgeFrom: index.edgeFrom,
                    edgeTo: index.edgeTo),
                graph: graph)
            searched20 = manyToOne(20, on: searching)
            searched100 = manyToOne(100, on: searching)
        }
        let byHalves = FastRouter(
            index: FastRouterIndex(
                hierarchy: index.hierarchy.withoutUnpackedShortcuts(), labels: index.labels,
                edgeFrom: index.edgeFrom, edgeTo: index.edgeTo),
            graph: graph)
        let geometryByHalves = pairs.map { pair in
            time(clock) { sink &+= (try? byHalves.route(pair))?.geometry.count ?? 0 }
        }
        let snapping = points.prefix(configuration.pairs).map { point in
            time(clock) { sink &+= (try? snapper.snap(point))?.piece ?? 0 }
        }
        var snap20Together: [Double] = []
        var snap20OneByOne: [Double] = []
        for round in 0..<(2 * configuration.manyToOneRounds) {
            let group = randomPoints(graph, count: 20, random: &random)
            if round % 2 == 0 {
                snap20Together.append(time(clock) { for p in snapper.snap(group) { sink &+= p?.piece ?? 0 } })
            } else {
                snap20OneByOne.append(time(clock) { for p in group { sink &+= (try? snapper.snap(p))?.piece ?? 0 } })
            }
        }
        // Last, after the peak RSS of the queries is read (it holds a second set of labels for a while): the label
        // pass again, on two workers then on one thread, in this process.
        let peakAfterQueries = peakResidentMegabytes()
        if variants != nil, let labels = index.labels, labels.climbByteCount > 0 {
            for usesTwoThreads in [true, false] {
                let start = clock.now
                let again = HubLabels(
                    hierarchy: index.hierarchy, entryLimit: configuration.index.hubLabelEntryLimit,
                    usesTwoThreads: usesTwoThreads)
                sink &+= again?.entryCount ?? 0
                variants?[usesTwoThreads ? "labels_two_threads_s" : "labels_one_thread_s"] = seconds(clock.now - start)
            }
            // The contraction again, with the priority estimates shared with a second thread, then on one.
            for usesTwoThreads in [true, false] {
                var contraction = configuration.index.contraction
                contraction.usesTwoThreads = usesTwoThreads
                var builder = ContractionBuilder(graph: ContractionGraph(roadGraph: graph), configuration: contraction)
                let start = clock.now
                sink &+= builder.build().arcCount
                variants?[usesTwoThreads ? "contraction_two_threads_s" : "contraction_one_thread_s"] = seconds(
                    clock.now - start)
                if usesTwoThreads {
                    variants?["contraction_epochs_sharing"] = Double(builder.epochsSharing)
                    variants?["contraction_epochs_alone"] = Double(builder.epochsAlone)
                }
            }
        }
        precondition(sink != 42, "keeps the optimizer from dropping the timed work")
        return Result(
            nodes: graph.nodeCount, edges: graph.edgeCount, importSeconds: importSeconds,
            preprocessSeconds: preprocessed.contractionSeconds + preprocessed.hubLabelSeconds,
            contractionSeconds: preprocessed.contractionSeconds, hubLabelSeconds: preprocessed.hubLabelSeconds,
            shortcuts: index.hierarchy.shortcutCount, averageLabelSize: index.labels?.averageLabelSize,
            labelledNodes: index.labels?.labelledNodeCount,
            labelMegabytes: index.labels.map { Double($0.byteCount) / 1_048_576 },
            peakRSSMegabytes: preprocessed.peakRSSMegabytes, peakRSSAfterQueriesMegabytes: peakAfterQueries,
            pairs: pairs.count, dijkstraPairs: slow.count, p2pMedianMicroseconds: median(fast),
            p2pHierarchyMedianMicroseconds: median(viaHierarchy), p2pDijkstraMedianMicroseconds: median(slow),
            p2pGeometryMedianMicroseconds: median(geometry), manyToOne20MedianMicroseconds: median(many20),
            manyToOne100MedianMicroseconds: median(many100), manyToOne20RoutingMedianMicroseconds: median(routingOnly),
            snapMedianMicroseconds: median(snapping), climbSettled: perClimb(\.settled),
            climbBorderNodes: perClimb(\.borderNodes), climbBorderEntries: perClimb(\.borderEntries),
            climbScannedEntries: perClimb(\.scannedEntries),
            manyToOne20SearchedMedianMicroseconds: searched20.map(median),
            manyToOne100SearchedMedianMicroseconds: searched100.map(median),
            p2pGeometryByHalvesMedianMicroseconds: median(geometryByHalves),
            manyToOne20OneByOneMedianMicroseconds: median(many20OneByOne),
            manyToOne100OneByOneMedianMicroseconds: median(many100OneByOne),
            manyToOne20RoutingOneByOneMedianMicroseconds: median(routingOnlyOneByOne),
            p2pGeometryOneByOneMedianMicroseconds: median(geometryOneByOne),
            snap20TogetherMedianMicroseconds: median(snap20Together),
            snap20OneByOneMedianMicroseconds: median(snap20OneByOne),
            climbListMegabytes: index.labels.map { Double($0.climbByteCount) / 1_048_576 },
            unpackedShortcutMegabytes: Double(index.hierarchy.unpackedShortcutByteCount) / 1_048_576,
            variants: variants)
    }

    /// Generates a `SyntheticCity` grid of about `nodes` crossings and measures it (generation is `import_s`;
    /// the road graph is dropped while preprocessing and generated again for the queries).
    public static func runSynthetic(nodes: Int, seed: UInt64 = 1, configuration: Configuration) -> Result {
        let clock = ContinuousClock()
        let start = clock.now
        let side = max(2, Int(Double(nodes).squareRoot().rounded()))
        // As a memory-conscious import would: keep only the contraction input while preprocessing, and build
        // the road graph again (untimed) for the queries.
        let input = ContractionGraph(roadGraph: SyntheticCity.grid(rows: side, cols: side, seed: seed))
        let generated = clock.now
        let preprocessed = preprocess(input, configuration: configuration.index)
        let graph = SyntheticCity.grid(rows: side, cols: side, seed: seed)
        return measure(
            on: graph, preprocessed: preprocessed, importSeconds: seconds(generated - start),
            configuration: configuration)
    }

    /// Peak resident set size of this process in MB (`getrusage`; Linux reports kilobytes).
    public static func peakResidentMegabytes() -> Double {
        var usage = rusage()
        #if canImport(Glibc)
            let who = __rusage_who_t(RUSAGE_SELF.rawValue)
        #else
            let who = RUSAGE_SELF
        #endif
        guard getrusage(who, &usage) == 0 else { return 0 }
        #if canImport(Darwin)
            return Double(usage.ru_maxrss) / 1_048_576
        #else
            return Double(usage.ru_maxrss) / 1024
        #endif
    }

    private static func randomPoints(_ graph: RoadGraph, count: Int, random: inout SplitMix64) -> [Coordinate] {
        let candidates = graph.nodeCount
        guard candidates > 0 else { return [] }
        var points: [Coordinate] = []
        points.reserveCapacity(count)
        while points.count < count {
            let node = Int(random.next() % UInt64(candidates))
            guard graph.nodeInLargestComponent[node] else { continue }
            let c = graph.nodeCoordinates[node]
            let offset = 0.0003 * (random.nextDouble() - 0.5)  // about ±15 m
            points.append(Coordinate(latitude: c.latitude + offset, longitude: c.longitude - offset))
        }
        return points
    }

    @inline(never) private static func time(_ clock: ContinuousClock, _ work: () -> Void) -> Double {
        let start = clock.now
        work()
        return seconds(clock.now - start) * 1e6
    }

    private static func seconds(_ d: Duration) -> Double {
        Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
    }

    private static func median(_ values: [Double]) -> Double {
        guard !values.isEmpty else { return 0 }
        let sorted = values.sorted()
        return sorted[sorted.count / 2]
    }
}
