import CabGeo

extension RoadGraph {
    /// The graph file's format version; bump it whenever the layout or the meaning of any array changes.
    /// Version 2: via-way restrictions and U-turn rules (turn-aware junctions, chain states, dead-end penalty).
    /// Version 3: edge durations include traffic-signal and gate delays and the slower speeds of rough surfaces,
    /// service roads and narrow roads; guard rings pass joints without counting (more turn-aware junctions);
    /// destination-only roads get inbound copies and start copies of their nodes (`DestinationZones`).
    /// Version 4: `ArrayFileWriter` layout (arrays padded to 8 bytes, a checksum at the end), the contraction
    /// fingerprint in the header and the snapper's cell grid after the arrays, read in place at start-up.
    /// Version 5: edge durations include turn costs, and every junction is split per arrival, on maps of up to
    /// `RoadNetworkBuilder.turnCostJunctionLimit` junctions; each edge's turn part after the coordinates.
    /// Version 6: access per direction (`motor_vehicle:forward=no`, ...) and `oneway:motor_vehicle` (and
    /// `oneway:motorcar`, `oneway:vehicle`) read, so the same map can give other edges.
    public static let fileFormatVersion: UInt32 = 6
    /// The first eight bytes of every graph file.
    static let fileMagic: [UInt8] = Array("SWCABRG\u{1}".utf8)

    /// Writes the graph to `path` in chunks: magic, format version, fingerprints and array sizes, each array as raw
    /// little-endian values, the snapper's grid (built here unless the graph carries one), a checksum.
    /// - Throws: `RoutingError.fileAccess`.
    /// - Complexity: O(size of the graph), plus building the snapper's grid.
    public func write(to path: String) throws(RoutingError) {
        var out = ArrayFileWriter(file: try BinaryFile(path: path, mode: "wb"))
        try out.put(raw: Self.fileMagic)
        try out.put(Self.fileFormatVersion)
        try out.put(UInt32(0))
        for value in [
            sourceFingerprint, contractionFingerprint, UInt64(nodeCount), UInt64(edgeCount), UInt64(pieceCount),
            UInt64(coordinates.count),
        ] {
            try out.put(value)
        }
        try out.put(firstEdge)
        try out.put(edgeSources)
        try out.put(edgeTargets)
        try out.put(edgeDurationsMilliseconds)
        try out.put(edgeDistancesDm)
        try out.put(edgePieces)
        try out.put(flatten(nodeCoordinates))
        try out.put(nodeOSMIDs)
        try out.put(nodeInLargestComponent.map { $0 ? UInt8(1) : 0 })
        try out.put(pieceFirstCoordinate)
        try out.put(pieceWayIDs)
        try out.put(pieceFirstEdge)
        try out.put(pieceEdges)
        try out.put(flatten(coordinates))
        try out.put(UInt64(edgeTurnsMilliseconds.count))
        if !edgeTurnsMilliseconds.isEmpty { try out.put(edgeTurnsMilliseconds) }
        let grid =
            storedSnapperGrid
            ?? Snapper.buildGrid(graph: self, cellMeters: Snapper.defaultCellMeters, largestComponentOnly: true)
        try grid.write(into: &out)
        try out.finish()
    }

    /// Reads a graph written by `write(to:)`, refusing a file of another format version, a damaged one (its
    /// checksum) or, when `expectedFingerprint` is given, one of another map. The file is mapped: the graph's
    /// arrays are copied out of it once, the snapper's grid is viewed in place (`Snapper` uses it).
    /// - Throws: `RoutingError` `.fileAccess`, `.corruptFile`, `.wrongVersion` or `.wrongMap`.
    /// - Complexity: O(file size): one checksum pass and one copy of the graph's arrays.
    public static func load(from path: String, expectedFingerprint: UInt64? = nil) throws(RoutingError) -> RoadGraph {
        let file = try MappedFile(path: path)
        let notAGraph = RoutingError(.corruptFile, "\(path) is not a SwiftCab road graph file; run `cab import` again")
        guard file.count >= 16, Array(file.bytes.prefix(8)) == fileMagic else { throw notAGraph }
        let damaged = RoutingError(
            .corruptFile, "\(path) is damaged or truncated (its checksum does not match); run `cab import` again")
        var input = ArrayFileReader(file: file, truncated: damaged)
        input.offset = 8
        let version: UInt32 = try input.scalar()
        guard version == fileFormatVersion else {
            throw RoutingError(
                .wrongVersion,
                "\(path) has road graph format version \(version), this build reads version \(fileFormatVersion); "
                    + "run `cab import` again")
        }
        guard input.checksumMatches() else { throw damaged }
        _ = try input.scalar() as UInt32
        var header: [UInt64] = []
        for _ in 0..<6 { header.append(try input.scalar()) }
        if let expected = expectedFingerprint, header[0] != expected {
            throw RoutingError(
                .wrongMap,
                "\(path) was built from another map (fingerprint \(hex(header[0])), expected \(hex(expected))); "
                    + "run `cab import` again")
        }
        let limit = UInt64(UInt32.max)
        guard header[2] < limit, header[3] < limit, header[4] < limit, header[5] < limit else { throw damaged }
        let (nodes, edges, pieces, points) = (Int(header[2]), Int(header[3]), Int(header[4]), Int(header[5]))
        var graph = RoadGraph(
            firstEdge: try input.array(count: nodes + 1),
            edgeSources: try input.array(count: edges),
            edgeTargets: try input.array(count: edges),
            edgeDurationsMilliseconds: try input.array(count: edges),
            edgeDistancesDm: try input.array(count: edges),
            edgePieces: try input.array(count: edges),
            nodeCoordinates: unflatten(try input.buffer(count: 2 * nodes)),
            nodeOSMIDs: try input.array(count: nodes),
            nodeInLargestComponent: [],
            pieceFirstCoordinate: [], pieceWayIDs: [], pieceFirstEdge: [], pieceEdges: [], coordinates: [],
            sourceFingerprint: header[0])
        let flags: ContractionBuffer<UInt8> = try input.buffer(count: nodes)
        graph.nodeInLargestComponent = (0..<nodes).map { flags[$0] == 1 }
        graph.pieceFirstCoordinate = try input.array(count: pieces + 1)
        graph.pieceWayIDs = try input.array(count: pieces)
        graph.pieceFirstEdge = try input.array(count: pieces + 1)
        graph.pieceEdges = try input.array(count: edges)
        graph.coordinates = unflatten(try input.buffer(count: 2 * points))
        let turns: UInt64 = try input.scalar()
        guard turns == 0 || turns == UInt64(edges) else { throw damaged }
        if turns > 0 { graph.edgeTurnsMilliseconds = try input.array(count: edges) }
        graph.storedContractionFingerprint = header[1]
        let graphEnd = input.offset
        guard let grid = try SnapperGrid.read(from: &input, coordinateCount: points), input.offset == input.dataEnd
        else { throw damaged }
        graph.storedSnapperGrid = grid
        graph.indexRouteEdges()
        // The graph's arrays were copied out: their pages need not stay in this process (the grid's do).
        file.dropPages(before: graphEnd)
        return graph
    }
}

/// Coordinates as latitude, longitude pairs of doubles (`Coordinate` is not bitwise-copyable across modules).
private func flatten(_ points: [Coordinate]) -> [Double] {
    var flat: [Double] = []
    flat.reserveCapacity(points.count * 2)
    for p in points {
        flat.append(p.latitude)
        flat.append(p.longitude)
    }
    return flat
}

private func unflatten(_ flat: ContractionBuffer<Double>) -> [Coordinate] {
    let count = flat.count / 2
    return [Coordinate](onHugePagesCount: count) { start in
        for i in 0..<count {
            (start + i).initialize(to: Coordinate(latitude: flat[2 * i], longitude: flat[2 * i + 1]))
        }
    }
}

private func hex(_ value: UInt64) -> String { String(value, radix: 16) }
