/// The preprocessed file: `cab import` writes these bytes next to the graph and `cab serve` loads them.
///
/// Layout (`ArrayFileWriter`, little-endian): magic `SWCABCH\0`, format version (UInt32), 4 zero bytes, graph
/// fingerprint (UInt64), node and edge counts (UInt64), then arrays, each as an element count (UInt64) followed by
/// raw elements padded to 8 bytes, then a checksum of all that. Loading maps the file (`mmap`) and the index's buffers point
/// into the mapping: nothing is copied, start-up does not grow with a copy of the index, and processes on one
/// host share the pages. A file from another format version or another graph is refused, and so is one whose
/// checksum does not match (a damaged file cannot make a query read out of bounds: the bytes are those the import
/// wrote).
extension FastRouterIndex {
    /// The current format version; bump it whenever the layout or the meaning of a field changes.
    /// Version 4: built over graphs with via-way restrictions and U-turn rules (graph file version 2), whose nodes
    /// differ from those of the same map before. Version 5: over graph file version 3 (other durations and
    /// nodes for the same map). Version 6: arrays padded to 8 bytes, a checksum at the end instead of a check of
    /// every index at load, the unpacked shortcut lists stored (not rebuilt at every start). Version 7: label hubs and
    /// durations packed in 6 bytes per entry (`LabelEntries`).
    public static let fileFormatVersion: UInt32 = 7
    static let fileMagic: [UInt8] = Array("SWCABCH\0".utf8)

    /// The index as file bytes.
    /// - Complexity: O(size of the index).
    public func fileBytes() -> [UInt8] {
        var out = ArrayFileWriter()
        // Writing into memory cannot fail.
        try! write(into: &out)
        return out.bytes
    }

    /// Writes the index to `path` (see `fileBytes()`), in chunks: the file is never held in memory whole.
    /// - Throws: `RoutingError.fileAccess`.
    public func write(to path: String) throws(RoutingError) {
        var out = ArrayFileWriter(file: try BinaryFile(path: path, mode: "wb"))
        try write(into: &out)
    }

    private func write(into out: inout ArrayFileWriter) throws(RoutingError) {
        try out.put(raw: Self.fileMagic)
        try out.put(Self.fileFormatVersion)
        try out.put(UInt32(0))  // the header stays 8-byte aligned
        try out.put(graphFingerprint)
        try out.put(UInt64(nodeCount))
        try out.put(UInt64(edgeCount))
        let h = hierarchy
        try out.put(h.rankOf)
        try out.put(h.nodeAt)
        for buffer in [h.forwardFirst, h.forwardHead, h.forwardArc, h.backwardFirst, h.backwardHead, h.backwardArc] {
            try out.put(buffer)
        }
        try out.put(h.forwardWeight)
        try out.put(h.backwardWeight)
        try out.put(h.arcLength)
        try out.put(h.arcFirst)
        try out.put(h.arcSecond)
        try out.put(edgeFrom)
        try out.put(edgeTo)
        try out.put(h.unpacked.start)
        try out.put(h.unpacked.lists)
        try out.put(UInt32(labels == nil ? 0 : 1))
        if let labels {
            try out.put(UInt64(labels.lowestLabelledRank))
            for direction in [labels.forward, labels.backward] {
                try out.put(direction.first)
                try out.put(direction.entries.words)
                try out.put(direction.length)
            }
            try out.put(UInt32(labels.climbs == nil ? 0 : 1))
            if let climbs = labels.climbs {
                for direction in [climbs.forward, climbs.backward] {
                    try out.put(direction.first)
                    try out.put(direction.entries)
                }
            }
        }
        try out.finish()
    }

    /// Loads an index written by `write(to:)`, refusing one of another format version or built from another
    /// graph (`expectedFingerprint` is `ContractionGraph.fingerprint` of the graph in use).
    /// - Throws: `RoutingError` `.fileAccess`, `.corruptFile`, `.wrongVersion` or `.wrongMap`, naming the file.
    public static func load(from path: String, expectedFingerprint: UInt64) throws(RoutingError) -> FastRouterIndex {
        let file = try MappedFile(path: path)
        do {
            return try FastRouterIndex(mapped: file, expectedFingerprint: expectedFingerprint)
        } catch {
            throw RoutingError(error.code, "\(path): \(error.message)")
        }
    }

    /// Loads an index from file bytes, checking that it was built by this format version from the graph whose
    /// `ContractionGraph.fingerprint` is `expectedFingerprint`.
    /// - Throws: `RoutingError` `.corruptFile` (not such a file, or damaged), `.wrongVersion`, or `.wrongMap`
    ///   (built from another map).
    public init(fileBytes bytes: [UInt8], expectedFingerprint: UInt64) throws(RoutingError) {
        try self.init(mapped: MappedFile(copying: bytes), expectedFingerprint: expectedFingerprint)
    }

    /// Loads an index whose buffers view `file` (see `init(fileBytes:expectedFingerprint:)`).
    /// - Complexity: O(file size) for the checksum, one sequential pass; nothing is copied.
    init(mapped file: MappedFile, expectedFingerprint: UInt64) throws(RoutingError) {
        var input = ArrayFileReader(file: file, truncated: Self.truncated)
        let bytes = file.bytes
        guard bytes.count >= Self.fileMagic.count, Array(bytes.prefix(Self.fileMagic.count)) == Self.fileMagic else {
            throw RoutingError(
                .corruptFile, "The preprocessed routing file is not a SwiftCab routing file; run `cab import`.")
        }
        input.offset = Self.fileMagic.count
        let version: UInt32 = try input.scalar()
        guard version == Self.fileFormatVersion else {
            throw RoutingError(
                .wrongVersion,
                "The preprocessed routing file has format version \(version), this build reads version "
                    + "\(Self.fileFormatVersion); run `cab import` again.")
        }
        guard input.checksumMatches() else {
            throw RoutingError(
                .corruptFile,
                "The preprocessed routing file is damaged or truncated (its checksum does not match); "
                    + "run `cab import` again.")
        }
        _ = try input.scalar() as UInt32
        let fingerprint: UInt64 = try input.scalar()
        guard fingerprint == expectedFingerprint else {
            throw RoutingError(
                .wrongMap,
                "The preprocessed routing file was built from a different map; run `cab import` again.")
        }
        let nodeCount = Int(try input.scalar() as UInt64)
        let edgeCount = Int(try input.scalar() as UInt64)
        let rankOf: ContractionBuffer<Int32> = try input.buffer(count: nodeCount)
        let nodeAt: ContractionBuffer<Int32> = try input.buffer(count: nodeCount)
        let fFirst: ContractionBuffer<Int32> = try input.buffer(count: nodeCount + 1)
        let fHead: ContractionBuffer<Int32> = try input.buffer()
        let fArc: ContractionBuffer<Int32> = try input.buffer(count: fHead.count)
        let bFirst: ContractionBuffer<Int32> = try input.buffer(count: nodeCount + 1)
        let bHead: ContractionBuffer<Int32> = try input.buffer()
        let bArc: ContractionBuffer<Int32> = try input.buffer(count: bHead.count)
        let fWeight: ContractionBuffer<UInt32> = try input.buffer(count: fHead.count)
        let bWeight: ContractionBuffer<UInt32> = try input.buffer(count: bHead.count)
        let arcLength: ContractionBuffer<Float> = try input.buffer()
        let arcFirst: ContractionBuffer<Int32> = try input.buffer(count: arcLength.count)
        let arcSecond: ContractionBuffer<Int32> = try input.buffer(count: arcLength.count)
        let edgeFrom: ContractionBuffer<Int32> = try input.buffer(count: edgeCount)
        let edgeTo: ContractionBuffer<Int32> = try input.buffer(count: edgeCount)
        let unpackedStart: ContractionBuffer<Int32> = try input.buffer(count: arcLength.count)
        let unpackedLists: ContractionBuffer<Int32> = try input.buffer()
        let hasLabels: UInt32 = try input.scalar()
        let hierarchy = ContractionHierarchy(
            nodeCount: nodeCount, edgeCount: edgeCount, graphFingerprint: fingerprint, rankOf: rankOf, nodeAt: nodeAt,
            forward: (fFirst, fHead, fWeight, fArc), backward: (bFirst, bHead, bWeight, bArc), arcLength: arcLength,
            arcFirst: arcFirst, arcSecond: arcSecond,
            unpacked: UnpackedShortcuts(start: unpackedStart, lists: unpackedLists))
        var labels: HubLabels?
        if hasLabels == 1 {
            let lowest = Int(try input.scalar() as UInt64)
            guard lowest < nodeCount else {
                throw RoutingError(.corruptFile, "The preprocessed routing file is damaged; run `cab import`.")
            }
            var directions: [HubLabels.Direction] = []
            for _ in 0..<2 {
                let first: ContractionBuffer<Int32> = try input.buffer(count: nodeCount + 1)
                let words: ContractionBuffer<UInt16> = try input.buffer()
                guard words.count >= 3 && words.count % 3 == 0 else {
                    throw RoutingError(.corruptFile, "The preprocessed routing file is damaged; run `cab import`.")
                }
                let entries = LabelEntries(words: words, lowest: Int32(lowest))
                let length: ContractionBuffer<Float> = try input.buffer(count: entries.count)
                directions.append(.init(first: first, entries: entries, length: length))
            }
            var climbs: LabelClimbs?
            if try input.scalar() as UInt32 == 1 {
                var lists: [LabelClimbs.Direction] = []
                for _ in 0..<2 {
                    let first: ContractionBuffer<Int32> = try input.buffer(count: lowest + 1)
                    lists.append(.init(first: first, entries: try input.buffer()))
                }
                climbs = LabelClimbs(forward: lists[0], backward: lists[1])
            }
            labels = HubLabels(
                nodeCount: nodeCount, lowestLabelledRank: lowest, rankOf: hierarchy.rankOf, forward: directions[0],
                backward: directions[1], climbs: climbs)
        }
        guard input.offset == input.dataEnd else {
            throw RoutingError(.corruptFile, "The preprocessed routing file has trailing bytes; run `cab import`.")
        }
        self.init(hierarchy: hierarchy, labels: labels, edgeFrom: edgeFrom, edgeTo: edgeTo)
    }

    static let truncated = RoutingError(
        .corruptFile, "The preprocessed routing file is truncated or damaged; run `cab import` again.")
}
