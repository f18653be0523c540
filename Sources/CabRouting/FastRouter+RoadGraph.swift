import CabGeo

/// Road-level queries: snapped points and `RouteEndpoints` in, `Route`s and milliseconds out, with the same
/// answers as `DijkstraRouter` (including the direct leg when both points share a piece of road).
extension FastRouter {
    /// A router over `index` for `graph` (the graph the index was built from).
    public convenience init(index: FastRouterIndex, graph: RoadGraph) {
        precondition(graph.nodeCount == index.nodeCount && graph.edgeCount == index.edgeCount, "index of another graph")
        self.init(index: index, nodeCoordinates: [], roadGraph: graph)
    }

    /// The fastest route between two snapped points, with geometry.
    /// - Throws: `RoutingError.unroutable` when no road path joins them.
    /// - Complexity: two upward searches plus the unpacked path.
    public func route(_ endpoints: RouteEndpoints) throws(RoutingError) -> Route {
        let graph = requireRoadGraph()
        let sources = endpoints.sources.map(ContractionSeed.init)
        let targets = endpoints.targets.map(ContractionSeed.init)
        let found = route(from: sources, to: targets)
        if let leg = endpoints.direct, leg.costMilliseconds <= found.map({ Int($0.durationMilliseconds) }) ?? .max {
            return graph.directRoute(endpoints, leg: leg)
        }
        guard let found else {
            throw RoutingError(
                .unroutable,
                "no road route from \(endpoints.start.query) to \(endpoints.end.query): they are not connected")
        }
        return graph.route(
            endpoints, source: endpoints.sources[found.sourceSeed], edges: found.edges,
            target: endpoints.targets[found.targetSeed], readsRecords: labelQuery?.readsRouteEdges ?? true)
    }

    /// The travel time between two snapped points in milliseconds; nil when unroutable.
    /// - Complexity: a label merge per seed pair (two upward searches without labels).
    public func durationMilliseconds(_ endpoints: RouteEndpoints) -> Int? {
        if let labels = index.labels, labels.coversEveryNode {
            // The hot path: label merges straight from the road seeds, no arrays built.
            var best = Int.max
            for s in endpoints.sources {
                let from = Int(labels.rankOf[s.node])
                for t in endpoints.targets {
                    let (d, _) = HubLabels.merge(labels.forward, from, labels.backward, Int(labels.rankOf[t.node]))
                    if d != .max { best = min(best, Int(d) + s.costMilliseconds + t.costMilliseconds) }
                }
            }
            return Self.best(best == .max ? nil : best, endpoints.direct?.costMilliseconds)
        }
        if let labelQuery {
            let answer = labelQuery.durationWithoutPath(
                from: collect(endpoints.sources, into: &sourceScratch),
                to: collect(endpoints.targets, into: &targetScratch))
            return Self.best(answer.found ? Int(answer.durationMilliseconds) : nil, endpoints.direct?.costMilliseconds)
        }
        let found = duration(
            from: endpoints.sources.map(ContractionSeed.init), to: endpoints.targets.map(ContractionSeed.init))
        return Self.best(found.map { Int($0.durationMilliseconds) }, endpoints.direct?.costMilliseconds)
    }

    /// Travel times in milliseconds from each start (drivers) to one end (a pickup); nil where unroutable.
    /// - Complexity: with labels, one table fill plus O(label size) per start, no allocation per start.
    public func durationsMilliseconds(from starts: [SnappedPoint], to end: SnappedPoint) -> [Int?] {
        guard labelQuery != nil else {
            let seeds = seeds(pairing: end, with: starts, fixedIsEnd: true)
            return zip(durations(from: seeds.others, to: seeds.fixed), seeds.direct).map {
                Self.best($0.map { Int($0.durationMilliseconds) }, $1?.costMilliseconds)
            }
        }
        return labelDurations(fixed: end, fixedIsEnd: true, count: starts.count) { starts[$0] }
    }

    /// Travel times in milliseconds from each start coordinate (drivers) to one end (a pickup), snapping them
    /// with `snapper`: nil where a start is off the roads or cannot reach the end. The dispatch hot path.
    /// - Throws: `RoutingError` when `end` cannot be snapped.
    /// - Complexity: one snap per point (all together, `Snapper.snap(_:)` over the list), then as
    ///   `durationsMilliseconds(from:to:)` on snapped points.
    public func durationsMilliseconds(
        from starts: [Coordinate], to end: Coordinate, snappingWith snapper: Snapper
    ) throws(RoutingError) -> [Int?] {
        guard let labelQuery, labelQuery.overlapsMisses else {
            return try durationsSnappingOneByOne(from: starts, to: end, snappingWith: snapper)
        }
        // The pickup snapped in the same batch as the drivers (its misses overlap theirs); snapped again on its own
        // only when it fails, for the error that says why.
        let snapped = snapper.snap([end] + starts)
        let pickup: SnappedPoint
        if let first = snapped[0] { pickup = first } else { pickup = try snapper.snap(end) }
        return labelDurations(fixed: pickup, fixedIsEnd: true, count: starts.count) { snapped[$0 + 1] }
    }

    /// `durationsMilliseconds(from:to:snappingWith:)` snapping one point at a time: without labels, and for the
    /// benchmark's same-run comparison (`UpperLabelQuery.overlapsMisses` off).
    private func durationsSnappingOneByOne(
        from starts: [Coordinate], to end: Coordinate, snappingWith snapper: Snapper
    ) throws(RoutingError) -> [Int?] {
        let pickup = try snapper.snap(end)
        guard labelQuery != nil else {
            return starts.map { start in
                (try? snapper.snap(start)).flatMap {
                    durationMilliseconds(RouteEndpoints(start: $0, end: pickup, in: requireRoadGraph()))
                }
            }
        }
        return labelDurations(fixed: pickup, fixedIsEnd: true, count: starts.count) { try? snapper.snap(starts[$0]) }
    }

    /// Travel times in milliseconds from one start to each end; nil where unroutable.
    /// - Complexity: with labels, one table fill plus O(label size) per end, no allocation per end.
    public func durationsMilliseconds(from start: SnappedPoint, to ends: [SnappedPoint]) -> [Int?] {
        guard labelQuery != nil else {
            let seeds = seeds(pairing: start, with: ends, fixedIsEnd: false)
            return zip(durations(from: seeds.fixed, to: seeds.others), seeds.direct).map {
                Self.best($0.map { Int($0.durationMilliseconds) }, $1?.costMilliseconds)
            }
        }
        return labelDurations(fixed: start, fixedIsEnd: false, count: ends.count) { ends[$0] }
    }

    /// Many-to-one or one-to-many by labels: the fixed point's seeds climb and fill the table once (its arrival
    /// seeds when it is the end, its leaving seeds when it is the start), then each other point's seeds climb and
    /// scan it; nil for a point `other` does not give (off the roads) or that cannot be reached.
    private func labelDurations(
        fixed: SnappedPoint, fixedIsEnd: Bool, count: Int, other: (Int) -> SnappedPoint?
    ) -> [Int?] {
        guard let labelQuery else { preconditionFailure("durations by labels without labels") }
        let graph = requireRoadGraph()
        func collect(_ point: SnappedPoint, arriving: Bool) -> [ContractionSeed] {
            sourceScratch.removeAll(keepingCapacity: true)
            if arriving {
                graph.forEachTargetSeed(of: point) { sourceScratch.append(ContractionSeed($0)) }
            } else {
                graph.forEachSourceSeed(of: point) { sourceScratch.append(ContractionSeed($0)) }
            }
            return sourceScratch
        }
        if !labelQuery.overlapsMisses {
            // The same-run baseline (`cab bench route`): the fill searched, as before.
            if fixedIsEnd {
                labelQuery.fill(fromTargets: collect(fixed, arriving: true))
            } else {
                labelQuery.fill(fromSources: collect(fixed, arriving: false))
            }
        } else if let labels = index.labels, labels.climbs != nil, !labels.coversEveryNode {
            // The batched scans read durations alone, so the fill writes no lengths (`durationsOnly`).
            labelQuery.durationFill(
                fromTargets: fixedIsEnd, collect(fixed, arriving: fixedIsEnd), durationsOnly: labelQuery.climbsInline)
            return batchedLabelDurations(fixed: fixed, fixedIsEnd: fixedIsEnd, count: count, other: other)
        } else {
            labelQuery.durationFill(fromTargets: fixedIsEnd, collect(fixed, arriving: fixedIsEnd))
        }
        var result: [Int?] = []
        result.reserveCapacity(count)
        for i in 0..<count {
            guard let point = other(i) else {
                result.append(nil)
                continue
            }
            let seeds = collect(point, arriving: !fixedIsEnd)
            let answer =
                fixedIsEnd ? labelQuery.durationScan(fromSources: seeds) : labelQuery.durationScan(fromTargets: seeds)
            let direct =
                fixedIsEnd ? graph.directSeed(from: point, to: fixed) : graph.directSeed(from: fixed, to: point)
            result.append(Self.best(answer.found ? Int(answer.durationMilliseconds) : nil, direct?.costMilliseconds))
        }
        return result
    }

    /// The rest of `labelDurations` (the table filled) below labels with precomputed climbs, the metro case: the
    /// points' seeds are gathered in passes over all of them (piece, then its edges), touching each array a pass
    /// will read first so that the misses of different points overlap, then `UpperLabelQuery.durationScans`
    /// climbs and scans them the same way. Same answers as one `durationScan` per point.
    private func batchedLabelDurations(
        fixed: SnappedPoint, fixedIsEnd: Bool, count: Int, other: (Int) -> SnappedPoint?
    ) -> [Int?] {
        guard let labelQuery else { preconditionFailure("durations by labels without labels") }
        let graph = requireRoadGraph()
        // The class's arrays are moved into locals for the loops (no exclusivity check per access).
        var points = batchPoints
        var seeds = batchSeeds
        var seedEnds = batchSeedEnds
        (batchPoints, batchSeeds, batchSeedEnds) = ([], [], [])
        defer { (batchPoints, batchSeeds, batchSeedEnds) = (points, seeds, seedEnds) }
        points.removeAll(keepingCapacity: true)
        for i in 0..<count { points.append(other(i)) }
        var sink: UInt32 = 0
        for case let point? in points { sink &+= graph.pieceFirstEdge[point.piece] }
        for case let point? in points where graph.pieceFirstEdge[point.piece] < graph.pieceFirstEdge[point.piece + 1] {
            sink &+= graph.pieceEdges[Int(graph.pieceFirstEdge[point.piece])]
        }
        // Every edge of the piece (both directions of a two-way street: the seeds read each one's data; the
        // previous round, kept for the benchmark's comparison with `climbsInline` off, touched the first only).
        let touchesEveryEdge = labelQuery.climbsInline
        for case let point? in points {
            let first = Int(graph.pieceFirstEdge[point.piece])
            let end =
                touchesEveryEdge
                ? Int(graph.pieceFirstEdge[point.piece + 1])
                : min(first + 1, Int(graph.pieceFirstEdge[point.piece + 1]))
            for k in first..<end {
                let edge = Int(graph.pieceEdges[k])
                sink &+= graph.edgeSources[edge] &+ graph.edgeTargets[edge] &+ graph.edgeDurationsMilliseconds[edge]
                sink &+= graph.edgePieces[edge] &+ graph.edgeDistancesDm[edge]
            }
        }
        seeds.removeAll(keepingCapacity: true)
        seedEnds.removeAll(keepingCapacity: true)
        for case let point? in points {
            if fixedIsEnd {
                graph.forEachSourceSeed(of: point) { seeds.append(ContractionSeed($0)) }
            } else {
                graph.forEachTargetSeed(of: point) { seeds.append(ContractionSeed($0)) }
            }
            seedEnds.append(seeds.count)
        }
        labelQuery.touched &+= sink
        let answers = labelQuery.durationScans(seeds: seeds, seedEnds: seedEnds, fromSources: fixedIsEnd)
        var result: [Int?] = []
        result.reserveCapacity(count)
        var next = 0
        for point in points {
            guard let point else {
                result.append(nil)
                continue
            }
            let answer = answers[next]
            next += 1
            let direct =
                fixedIsEnd ? graph.directSeed(from: point, to: fixed) : graph.directSeed(from: fixed, to: point)
            result.append(Self.best(answer.found ? Int(answer.durationMilliseconds) : nil, direct?.costMilliseconds))
        }
        return result
    }

    /// The road seeds as engine seeds, in a reused array.
    private func collect(_ seeds: [RouteSeed], into scratch: inout [ContractionSeed]) -> [ContractionSeed] {
        scratch.removeAll(keepingCapacity: true)
        for seed in seeds { scratch.append(ContractionSeed(seed)) }
        return scratch
    }

    /// Durations and distances between every start and every end (`result[i][j]`); nil where unroutable.
    /// - Complexity: one one-to-many query per start.
    public func matrix(from starts: [SnappedPoint], to ends: [SnappedPoint]) -> [[FastDuration?]] {
        starts.map { start in
            let seeds = seeds(pairing: start, with: ends, fixedIsEnd: false)
            return zip(durations(from: seeds.fixed, to: seeds.others), seeds.direct).map { found, leg in
                guard let leg, Int(found?.durationMilliseconds ?? .max) >= leg.costMilliseconds else { return found }
                return FastDuration(
                    durationMilliseconds: UInt32(leg.costMilliseconds), lengthMeters: leg.distanceMeters)
            }
        }
    }

    /// The seeds of one fixed point (an end when `fixedIsEnd`, else a start) and of each other point, with the
    /// direct leg of each pair.
    private func seeds(pairing fixed: SnappedPoint, with others: [SnappedPoint], fixedIsEnd: Bool)
        -> (fixed: [ContractionSeed], others: [[ContractionSeed]], direct: [RouteSeed?])
    {
        let graph = requireRoadGraph()
        var fixedSeeds: [ContractionSeed] = []
        var otherSeeds: [[ContractionSeed]] = []
        var direct: [RouteSeed?] = []
        otherSeeds.reserveCapacity(others.count)
        direct.reserveCapacity(others.count)
        for other in others {
            let endpoints = RouteEndpoints(
                start: fixedIsEnd ? other : fixed, end: fixedIsEnd ? fixed : other, in: graph)
            let (mine, theirs) =
                fixedIsEnd ? (endpoints.targets, endpoints.sources) : (endpoints.sources, endpoints.targets)
            if fixedSeeds.isEmpty { fixedSeeds = mine.map(ContractionSeed.init) }
            otherSeeds.append(theirs.map(ContractionSeed.init))
            direct.append(endpoints.direct)
        }
        return (fixedSeeds, otherSeeds, direct)
    }

    private static func best(_ a: Int?, _ b: Int?) -> Int? {
        switch (a, b) {
        case (let a?, let b?): return min(a, b)
        case (let a, let b): return a ?? b
        }
    }
}
