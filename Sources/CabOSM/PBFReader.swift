/// Reads an OpenStreetMap PBF file blob by blob, handing nodes, ways and relations to a handler.
///
/// Memory stays bounded by the largest blob (32 MiB by the format's limit, usually ~100 KiB) whatever the
/// file's size. Corrupt or truncated input throws an `OSMError` naming the byte offset; it never traps.
///
/// ```swift
/// let reader = try PBFReader(path: "monaco.osm.pbf")
/// var counter = WayCounter()
/// try reader.read(into: &counter, options: .init(nodes: false, relations: false))
/// ```
public final class PBFReader {
    /// Which elements to decode; skipping what a consumer does not need saves most of the work.
    public struct Options: Sendable, Equatable {
        /// Decode nodes (dense and plain).
        public var nodes: Bool
        /// Decode nodes' tags (most nodes have none; routing never needs them).
        public var nodeTags: Bool
        /// Decode ways.
        public var ways: Bool
        /// Decode relations.
        public var relations: Bool

        /// Everything, by default.
        public init(nodes: Bool = true, nodeTags: Bool = true, ways: Bool = true, relations: Bool = true) {
            self.nodes = nodes
            self.nodeTags = nodeTags
            self.ways = ways
            self.relations = relations
        }

        /// Every element with every tag.
        public static let all = Options()
    }

    /// The path the file was opened from.
    public let path: String
    /// What the file's header blob says.
    public let header: PBFHeader
    /// The file's size in bytes.
    public var fileSize: Int { file.size }

    private let file: PBFFile
    private let firstDataOffset: Int

    /// Opens a PBF file and reads its header, refusing files that need features this reader lacks.
    public init(path: String) throws(OSMError) {
        let file = try PBFFile(path: path)
        let stream = BlobStream(file: file, offset: 0)
        guard let frame = try stream.next() else {
            throw OSMError(.truncated, "truncated file at byte 0: \(path) is empty, expected an OSM PBF", byteOffset: 0)
        }
        guard frame.kind == .header else {
            throw OSMError(
                .corrupt, "corrupt file at byte 0: the first blob of \(path) is not an OSMHeader", byteOffset: 0)
        }
        let payload = try stream.decompress(frame)
        let header = try stream.withReader(over: payload, of: frame, what: "header block") {
            (reader: inout ProtobufReader) throws(OSMError) in try PBFHeader(decoding: &reader)
        }
        let unknown = header.requiredFeatures.filter { !PBFHeader.supportedRequiredFeatures.contains($0) }
        guard unknown.isEmpty else {
            throw OSMError(
                .unsupported,
                "unsupported PBF at byte \(frame.offset): \(path) requires \(unknown.joined(separator: ", ")), "
                    + "which this reader does not implement (it reads "
                    + "\(PBFHeader.supportedRequiredFeatures.sorted().joined(separator: ", ")))",
                byteOffset: frame.offset)
        }
        self.path = path
        self.file = file
        self.header = header
        self.firstDataOffset = frame.end
    }

    /// Streams every element to `handler` in file order, one blob at a time; may be called again to re-read.
    ///
    /// `progress` is called after each blob with the bytes read so far and the file's size.
    /// Errors thrown by the handler stop the read and propagate unchanged.
    /// - Complexity: O(file size); memory O(largest blob).
    @discardableResult
    public func read(
        into handler: inout some OSMElementHandler, options: Options = .all,
        progress: (_ bytesDone: Int, _ bytesTotal: Int) -> Void = { _, _ in }
    ) throws -> PBFReadSummary {
        let stream = BlobStream(file: file, offset: firstDataOffset)
        var decoder = PrimitiveBlockDecoder(options: options)
        let wantsAny = options.nodes || options.ways || options.relations
        while let frame = try stream.next() {
            decoder.summary.blobs += 1
            if frame.kind == .data && wantsAny {
                let payload = try stream.decompress(frame)
                try stream.withReader(over: payload, of: frame, what: "primitive block") { block in
                    try decoder.decode(&block, into: &handler)
                }
            }
            // Other blob kinds (a repeated header, unknown types) are skipped, as the format asks.
            progress(frame.end, file.size)
        }
        return decoder.summary
    }
}

/// How much a `PBFReader.read` call delivered.
public struct PBFReadSummary: Sendable, Equatable {
    /// Blobs read (header blob excluded).
    public var blobs = 0
    /// Nodes handed to the handler.
    public var nodes = 0
    /// Ways handed to the handler.
    public var ways = 0
    /// Relations handed to the handler.
    public var relations = 0

    /// Creates a summary.
    public init(blobs: Int = 0, nodes: Int = 0, ways: Int = 0, relations: Int = 0) {
        self.blobs = blobs
        self.nodes = nodes
        self.ways = ways
        self.relations = relations
    }
}
