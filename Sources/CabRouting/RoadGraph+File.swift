import CabGeo

extension RoadGraph {
    /// The graph file's format version; bump it whenever the layout or the meaning of any array changes.
    /// Version 2: via-way restrictions and U-turn rules (turn-aware junctions, chain states, dead-end penalty).
    /// Version 3: edge durations include traffic-signal and gate delays and the slower speeds of rough surfaces,
    /// service roads and narrow roads; guard rings pass joints without counting (more turn-aware junctions);
    /// destination-only roads get inbound copies and start copies of their nodes (`DestinationZones`).
    public static let fileFormatVersion: UInt32 = 3
    /// The first eight bytes of every graph file.
    static let fileMagic: [UInt8] = Array("SWCABRG\u{1}".utf8)

    /// Writes the graph to `path`: magic, format version, source fingerprint, array sizes, then each array as raw
    /// little-endian values in one write.
    /// - Throws: `RoutingError.fileAccess`.
    public func write(to path: String) throws(RoutingError) {
        let file = try BinaryFile(path: path, mode: "wb")
        try file.write(Self.fileMagic)
        try file.write([Self.fileFormatVersion, 0])
        try file.write([
            sourceFingerprint, UInt64(nodeCount), UInt64(edgeCount), UInt64(pieceCount), UInt64(coordinates.count),
        ])
        try file.write(firstEdge)
        try file.write(edgeSources)
        try file.write(edgeTargets)
        try file.write(edgeDurationsMilliseconds)
        try file.write(edgeDistancesDm)
        try file.write(edgePieces)
        try file.write(flatten(nodeCoordinates))
        try file.write(nodeOSMIDs)
        try file.write(nodeInLargestComponent.map { $0 ? UInt8(1) : 0 })
        try file.write(pieceFirstCoordinate)
        try file.write(pieceWayIDs)
        try file.write(pieceFirstEdge)
        try file.write(pieceEdges)
        try file.write(flatten(coordinates))
        try file.flush()
    }

    /// Reads a graph written by `write(to:)`, refusing a file of another format version or, when
    /// `expectedFingerprint` is given, of another map.
    /// - Throws: `RoutingError` `.fileAccess`, `.corruptFile`, `.wrongVersion` or `.wrongMap`.
    /// - Complexity: O(file size): each array is one read, then one pass checks every index is in range.
    public static func load(from path: String, expectedFingerprint: UInt64? = nil) throws(RoutingError) -> RoadGraph {
        let file = try BinaryFile(path: path, mode: "rb")
        guard file.remainingBytes() >= 56, try file.read(UInt8.self, count: 8) == fileMagic else {
            throw RoutingError(.corruptFile, "\(path) is not a SwiftCab road graph file; run `cab import` again")
        }
        let version = try file.read(UInt32.self, count: 2)[0]
        guard version == fileFormatVersion else {
            throw RoutingError(
                .wrongVersion,
                "\(path) has road graph format version \(version), this build reads version \(fileFormatVersion); "
                    + "run `cab import` again")
        }
        let header = try file.read(UInt64.self, count: 5)
        if let expected = expectedFingerprint, header[0] != expected {
            throw RoutingError(
                .wrongMap,
                "\(path) was built from another map (fingerprint \(hex(header[0])), expected \(hex(expected))); "
                    + "run `cab import` again")
        }
        let limit = UInt64(UInt32.max)
        guard header[1] < limit, header[2] < limit, header[3] < limit, header[4] < limit else {
            throw RoutingError(.corruptFile, "\(path) is damaged: impossible array sizes")
        }
        let (nodes, edges, pieces, points) = (Int(header[1]), Int(header[2]), Int(header[3]), Int(header[4]))
        var graph = RoadGraph(
            firstEdge: try file.read(UInt32.self, count: nodes + 1),
            edgeSources: try file.read(UInt32.self, count: edges),
            edgeTargets: try file.read(UInt32.self, count: edges),
            edgeDurationsMilliseconds: try file.read(UInt32.self, count: edges),
            edgeDistancesDm: try file.read(UInt32.self, count: edges),
            edgePieces: try file.read(UInt32.self, count: edges),
            nodeCoordinates: unflatten(try file.read(Double.self, count: 2 * nodes)),
            nodeOSMIDs: try file.read(Int64.self, count: nodes),
            nodeInLargestComponent: [],
            pieceFirstCoordinate: [], pieceWayIDs: [], pieceFirstEdge: [], pieceEdges: [], coordinates: [],
            sourceFingerprint: header[0])
        let flags = try file.read(UInt8.self, count: nodes)
        graph.pieceFirstCoordinate = try file.read(UInt32.self, count: pieces + 1)
        graph.pieceWayIDs = try file.read(Int64.self, count: pieces)
        graph.pieceFirstEdge = try file.read(UInt32.self, count: pieces + 1)
        graph.pieceEdges = try file.read(UInt32.self, count: edges)
        graph.coordinates = unflatten(try file.read(Double.self, count: 2 * points))
        guard file.remainingBytes() == 0, flags.allSatisfy({ $0 <= 1 }), graph.isWellFormed(coordinateCount: points)
        else {
            throw RoutingError(.corruptFile, "\(path) is damaged: its arrays do not fit together")
        }
        graph.nodeInLargestComponent = flags.map { $0 == 1 }
        return graph
    }

    /// True when every offset and index is in range, so queries cannot trap on a damaged file.
    func isWellFormed(coordinateCount: Int) -> Bool {
        let nodes = UInt32(nodeCount)
        let edges = UInt32(edgeCount)
        let pieces = UInt32(pieceCount)
        return firstEdge.first == 0 && firstEdge.last == edges && isSorted(firstEdge)
            && edgeSources.allSatisfy { $0 < nodes } && edgeTargets.allSatisfy { $0 < nodes }
            && edgePieces.allSatisfy { $0 >> 1 < pieces } && pieceEdges.allSatisfy { $0 < edges }
            && pieceFirstEdge.first == 0 && pieceFirstEdge.last == edges && isSorted(pieceFirstEdge)
            && pieceFirstCoordinate.first == 0 && pieceFirstCoordinate.last == UInt32(coordinateCount)
            && isSorted(pieceFirstCoordinate)
            && zip(pieceFirstCoordinate, pieceFirstCoordinate.dropFirst()).allSatisfy { $1 - $0 >= 2 }
            && zip(edgeSources.indices, edgeSources).allSatisfy { e, s in
                firstEdge[Int(s)] <= UInt32(e) && UInt32(e) < firstEdge[Int(s) + 1]
            }
    }
}

private func isSorted(_ values: [UInt32]) -> Bool {
    zip(values, values.dropFirst()).allSatisfy { $0 <= $1 }
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

private func unflatten(_ flat: [Double]) -> [Coordinate] {
    (0..<(flat.count / 2)).map { Coordinate(latitude: flat[2 * $0], longitude: flat[2 * $0 + 1]) }
}

private func hex(_ value: UInt64) -> String { String(value, radix: 16) }
