/// The preprocessed file: `cab import` writes these bytes next to the graph and `cab serve` loads them.
///
/// Layout (little-endian): magic `SWCABCH\0`, format version (UInt32), graph fingerprint (UInt64), node and
/// edge counts (UInt64), then arrays, each as an element count (UInt64) followed by raw elements (every element
/// is 4 bytes, so every array stays 4-byte aligned). Loading maps the file (`mmap`) and the index's buffers point
/// into the mapping: nothing is copied, start-up does not grow with a copy of the index, and processes on one
/// host share the pages. A file from another format version or another graph is refused.
extension FastRouterIndex {
    /// The current format version; bump it whenever the layout or the meaning of a field changes.
    /// Version 4: built over graphs with via-way restrictions and U-turn rules (graph file version 2), whose nodes
    /// differ from those of the same map before. Version 5: over graph file version 3 (other durations and
    /// nodes for the same map).
    public static let fileFormatVersion: UInt32 = 5
    static let fileMagic: [UInt8] = Array("SWCABCH\0".utf8)

    /// The index as file bytes.
    /// - Complexity: O(size of the index).
    public func fileBytes() -> [UInt8] {
        var out = ContractionFileWriter()
        out.bytes.append(contentsOf: Self.fileMagic)
        out.put(Self.fileFormatVersion)
        out.put(graphFingerprint)
        out.put(UInt64(nodeCount))
        out.put(UInt64(edgeCount))
        let h = hierarchy
        out.put(h.rankOf)
        out.put(h.nodeAt)
        for buffer in [h.forwardFirst, h.forwardHead, h.forwardArc, h.backwardFirst, h.backwardHead, h.backwardArc] {
            out.put(buffer)
        }
        out.put(h.forwardWeight)
        out.put(h.backwardWeight)
        out.put(h.arcLength)
        out.put(h.arcFirst)
        out.put(h.arcSecond)
        out.put(edgeFrom)
        out.put(edgeTo)
        out.put(UInt32(labels == nil ? 0 : 1))
        if let labels {
            out.put(UInt64(labels.lowestLabelledRank))
            for direction in [labels.forward, labels.backward] {
                out.put(direction.first)
                out.put(direction.hub)
                out.put(direction.duration)
                out.put(direction.length)
            }
            out.put(UInt32(labels.climbs == nil ? 0 : 1))
            if let climbs = labels.climbs {
                for direction in [climbs.forward, climbs.backward] {
                    out.put(direction.first)
                    out.put(direction.entries)
                }
            }
        }
        return out.bytes
    }

    /// Writes the index to `path` (see `fileBytes()`).
    /// - Throws: `RoutingError.fileAccess`.
    public func write(to path: String) throws(RoutingError) {
        let file = try BinaryFile(path: path, mode: "wb")
        try file.write(fileBytes())
        try file.flush()
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
    init(mapped file: MappedFile, expectedFingerprint: UInt64) throws(RoutingError) {
        var input = ContractionFileReader(file: file)
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
        let hasLabels: UInt32 = try input.scalar()
        let hierarchy = ContractionHierarchy(
            nodeCount: nodeCount, edgeCount: edgeCount, graphFingerprint: fingerprint, rankOf: rankOf, nodeAt: nodeAt,
            forward: (fFirst, fHead, fWeight, fArc), backward: (bFirst, bHead, bWeight, bArc), arcLength: arcLength,
            arcFirst: arcFirst, arcSecond: arcSecond)
        var labels: HubLabels?
        if hasLabels == 1 {
            let lowest = Int(try input.scalar() as UInt64)
            guard lowest < nodeCount else {
                throw RoutingError(.corruptFile, "The preprocessed routing file is damaged; run `cab import`.")
            }
            var directions: [HubLabels.Direction] = []
            for _ in 0..<2 {
                let first: ContractionBuffer<Int32> = try input.buffer(count: nodeCount + 1)
                let hub: ContractionBuffer<Int32> = try input.buffer()
                let duration: ContractionBuffer<UInt32> = try input.buffer(count: hub.count)
                let length: ContractionBuffer<Float> = try input.buffer(count: hub.count)
                directions.append(.init(first: first, hub: hub, duration: duration, length: length))
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
        guard input.offset == bytes.count else {
            throw RoutingError(.corruptFile, "The preprocessed routing file has trailing bytes; run `cab import`.")
        }
        try Self.validate(hierarchy, labels: labels, edgeFrom: edgeFrom, edgeTo: edgeTo)
        self.init(hierarchy: hierarchy, labels: labels, edgeFrom: edgeFrom, edgeTo: edgeTo)
    }

    /// Checks every index in the loaded arrays, so that a damaged file cannot make a query read out of bounds.
    private static func validate(
        _ h: ContractionHierarchy, labels: HubLabels?, edgeFrom: ContractionBuffer<Int32>,
        edgeTo: ContractionBuffer<Int32>
    ) throws(RoutingError) {
        let damaged = RoutingError(.corruptFile, "The preprocessed routing file is damaged; run `cab import`.")
        let n = Int32(h.nodeCount)
        let arcs = Int32(h.arcCount)
        for i in 0..<h.nodeCount {
            guard (0..<n).contains(h.rankOf[i]), h.nodeAt[Int(h.rankOf[i])] == Int32(i) else { throw damaged }
        }
        for (first, head, arc) in [
            (h.forwardFirst, h.forwardHead, h.forwardArc), (h.backwardFirst, h.backwardHead, h.backwardArc),
        ] {
            guard first[0] == 0, Int(first[h.nodeCount]) == head.count else { throw damaged }
            for r in 0..<h.nodeCount where first[r] > first[r + 1] { throw damaged }
            for k in 0..<head.count {
                guard (0..<n).contains(head[k]), (0..<arcs).contains(arc[k]) else { throw damaged }
            }
        }
        for a in 0..<h.arcCount {
            let first = h.arcFirst[a]
            if first < 0 {
                guard Int(~first) < h.edgeCount else { throw damaged }
            } else {
                // Halves were created before the shortcut, so unpacking always terminates.
                guard first < Int32(a), (0..<Int32(a)).contains(h.arcSecond[a]) else { throw damaged }
            }
        }
        if let labels {
            for direction in [labels.forward, labels.backward] {
                guard direction.first[0] == 0, Int(direction.first[h.nodeCount]) == direction.hub.count else {
                    throw damaged
                }
                for r in 0..<h.nodeCount where direction.first[r] > direction.first[r + 1] { throw damaged }
                // Unlabelled ranks have empty labels (their queries climb instead).
                guard direction.first[labels.lowestLabelledRank] == 0 else { throw damaged }
                for e in 0..<direction.hub.count where !(0..<n).contains(direction.hub[e]) { throw damaged }
            }
            for lists in [labels.climbs?.forward, labels.climbs?.backward].compactMap({ $0 }) {
                let last = labels.lowestLabelledRank
                guard lists.first[0] == 0, Int(lists.first[last]) == lists.entries.count else { throw damaged }
                for r in 0..<last where lists.first[r] > lists.first[r + 1] { throw damaged }
                for e in 0..<lists.entries.count where !(0..<n).contains(lists.entries[e].rank) { throw damaged }
            }
        }
        guard edgeFrom.count == h.edgeCount, edgeTo.count == h.edgeCount else { throw damaged }
        for e in 0..<edgeFrom.count {
            guard (0..<n).contains(edgeFrom[e]), (0..<n).contains(edgeTo[e]) else { throw damaged }
        }
    }
}

/// Appends scalars and arrays as raw little-endian bytes.
struct ContractionFileWriter {
    var bytes: [UInt8] = []

    mutating func put<T: FixedWidthInteger>(_ value: T) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    mutating func put<T: BitwiseCopyable>(_ buffer: ContractionBuffer<T>) {
        put(UInt64(buffer.count))
        bytes.append(
            contentsOf: UnsafeRawBufferPointer(start: buffer.base, count: buffer.count * MemoryLayout<T>.stride))
    }
}

/// Reads what `ContractionFileWriter` wrote, throwing on truncation; arrays come out as buffers viewing the file.
struct ContractionFileReader {
    let file: MappedFile
    var offset = 0

    mutating func scalar<T: FixedWidthInteger>() throws(RoutingError) -> T {
        let size = MemoryLayout<T>.size
        guard offset + size <= file.count else { throw Self.truncated }
        let value = file.base.loadUnaligned(fromByteOffset: offset, as: T.self)
        offset += size
        return T(littleEndian: value)
    }

    /// The next array: a view into the file when aligned for `T` (always, for files this code wrote), else a copy.
    mutating func buffer<T: BitwiseCopyable>(count expected: Int? = nil) throws(RoutingError) -> ContractionBuffer<T> {
        let count64: UInt64 = try scalar()
        guard count64 <= UInt64(file.count) else { throw Self.truncated }
        let count = Int(count64)
        if let expected, expected != count { throw Self.truncated }
        let size = count * MemoryLayout<T>.stride
        guard offset + size <= file.count else { throw Self.truncated }
        let start = file.base + offset
        offset += size
        if Int(bitPattern: start) % MemoryLayout<T>.alignment == 0 {
            return ContractionBuffer(viewing: start, count: count, owner: file)
        }
        let copy = ContractionBuffer<T>(uninitializedCount: count)
        UnsafeMutableRawPointer(copy.base).copyMemory(from: start, byteCount: size)
        return copy
    }

    static let truncated = RoutingError(
        .corruptFile, "The preprocessed routing file is truncated or damaged; run `cab import` again.")
}
