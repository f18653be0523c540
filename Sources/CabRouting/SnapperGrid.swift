/// A `Snapper`'s index: the cell grid with its segments, each coordinate's piece and distance along it. Built
/// from a graph's pieces, or stored in the graph file and viewed in place from the mapped file (`RoadGraph.load`),
/// so that a server does not build it again at every start.
struct SnapperGrid: Sendable {
    /// The cell size asked for (the grid's grows on sparse maps).
    var requestedCellMeters: Double
    /// Whether only pieces in the largest strongly connected component are indexed.
    var largestComponentOnly: Bool
    /// The grid's south-west corner.
    var originLatitude: Double
    var originLongitude: Double
    /// The latitude the planar projection is true at.
    var referenceLatitude: Double
    /// The cell size in metres.
    var cellMeters: Double
    var columns: Int
    var rows: Int
    /// Each cell's first entry, `columns * rows + 1` entries.
    var cellFirst: ContractionBuffer<UInt32>
    var cellEntries: ContractionBuffer<SnapEntry>
    /// The piece of each segment (by its first coordinate), `UInt32.max` for coordinates that start none.
    var segmentPieces: ContractionBuffer<UInt32>
    /// Metres along its piece before each coordinate.
    var metersAlongPiece: ContractionBuffer<Double>

    /// Writes the grid after the graph's arrays.
    func write(into out: inout ArrayFileWriter) throws(RoutingError) {
        try out.put(requestedCellMeters)
        try out.put(UInt64(largestComponentOnly ? 1 : 0))
        for value in [originLatitude, originLongitude, referenceLatitude, cellMeters] { try out.put(value) }
        try out.put(UInt64(columns))
        try out.put(UInt64(rows))
        try out.put(cellFirst)
        try out.put(cellEntries)
        try out.put(segmentPieces)
        try out.put(metersAlongPiece)
    }

    /// Reads a grid written by `write(into:)` over a graph of `coordinateCount` coordinates, its arrays viewing the
    /// file; nil when the sizes do not fit together (the file's checksum has been checked: the values inside are
    /// those the import wrote).
    static func read(from input: inout ArrayFileReader, coordinateCount: Int) throws(RoutingError) -> SnapperGrid? {
        let requested = try input.double()
        let largestOnly: UInt64 = try input.scalar()
        let (latitude, longitude, reference, cell) = (
            try input.double(), try input.double(), try input.double(), try input.double()
        )
        let columns: UInt64 = try input.scalar()
        let rows: UInt64 = try input.scalar()
        guard columns > 0, rows > 0, columns < 1 << 31, rows < 1 << 31, columns * rows < 1 << 32 else { return nil }
        let first: ContractionBuffer<UInt32> = try input.buffer(count: Int(columns * rows) + 1)
        let entries: ContractionBuffer<SnapEntry> = try input.buffer()
        let pieces: ContractionBuffer<UInt32> = try input.buffer(count: coordinateCount)
        let along: ContractionBuffer<Double> = try input.buffer(count: coordinateCount)
        guard Int(first[first.count - 1]) == entries.count, cell > 0 else { return nil }
        return SnapperGrid(
            requestedCellMeters: requested, largestComponentOnly: largestOnly == 1, originLatitude: latitude,
            originLongitude: longitude, referenceLatitude: reference, cellMeters: cell, columns: Int(columns),
            rows: Int(rows), cellFirst: first, cellEntries: entries, segmentPieces: pieces, metersAlongPiece: along)
    }
}
