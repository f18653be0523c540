import CabGeo

/// What a PBF file's `OSMHeader` blob says about it: its extent, the features it needs, where it came from.
public struct PBFHeader: Sendable, Equatable {
    /// The required features this reader understands: files needing anything else are refused.
    public static let supportedRequiredFeatures: Set<String> = ["OsmSchema-V0.6", "DenseNodes", "LocationsOnWays"]

    /// The extent the writer declared, if any.
    public var boundingBox: BoundingBox?
    /// Features a reader must implement to read the file ("OsmSchema-V0.6", "DenseNodes").
    public var requiredFeatures: [String]
    /// Features a reader may use ("Sort.Type_then_ID").
    public var optionalFeatures: [String]
    /// The program that wrote the file.
    public var writingProgram: String?
    /// The data's source, if given.
    public var source: String?
    /// Seconds since 1970 of the replication state the data matches, if given.
    public var replicationTimestamp: Int64?
    /// The replication sequence number, if given.
    public var replicationSequenceNumber: Int64?
    /// Where replication diffs come from, if given.
    public var replicationBaseURL: String?

    /// Creates a header.
    public init(
        boundingBox: BoundingBox? = nil, requiredFeatures: [String] = [], optionalFeatures: [String] = [],
        writingProgram: String? = nil, source: String? = nil, replicationTimestamp: Int64? = nil,
        replicationSequenceNumber: Int64? = nil, replicationBaseURL: String? = nil
    ) {
        self.boundingBox = boundingBox
        self.requiredFeatures = requiredFeatures
        self.optionalFeatures = optionalFeatures
        self.writingProgram = writingProgram
        self.source = source
        self.replicationTimestamp = replicationTimestamp
        self.replicationSequenceNumber = replicationSequenceNumber
        self.replicationBaseURL = replicationBaseURL
    }

    /// Decodes a `HeaderBlock` message.
    init(decoding reader: inout ProtobufReader) throws(OSMError) {
        self.init()
        while let (number, wireType) = try reader.field() {
            switch number {
            case 1:
                try reader.expect(.lengthDelimited, wireType, field: "bbox")
                var box = try reader.message()
                boundingBox = try Self.decodeBoundingBox(&box)
            case 4:
                try reader.expect(.lengthDelimited, wireType, field: "required_features")
                requiredFeatures.append(try reader.string())
            case 5:
                try reader.expect(.lengthDelimited, wireType, field: "optional_features")
                optionalFeatures.append(try reader.string())
            case 16:
                try reader.expect(.lengthDelimited, wireType, field: "writingprogram")
                writingProgram = try reader.string()
            case 17:
                try reader.expect(.lengthDelimited, wireType, field: "source")
                source = try reader.string()
            case 32:
                try reader.expect(.varint, wireType, field: "osmosis_replication_timestamp")
                replicationTimestamp = try reader.int64()
            case 33:
                try reader.expect(.varint, wireType, field: "osmosis_replication_sequence_number")
                replicationSequenceNumber = try reader.int64()
            case 34:
                try reader.expect(.lengthDelimited, wireType, field: "osmosis_replication_base_url")
                replicationBaseURL = try reader.string()
            default:
                try reader.skip(wireType)
            }
        }
    }

    /// A `HeaderBBox`: left, right, top, bottom in nanodegrees.
    private static func decodeBoundingBox(_ reader: inout ProtobufReader) throws(OSMError) -> BoundingBox {
        var sides: [Int64] = [0, 0, 0, 0]
        var seen = 0
        while let (number, wireType) = try reader.field() {
            guard (1...4).contains(number) else {
                try reader.skip(wireType)
                continue
            }
            try reader.expect(.varint, wireType, field: "bbox")
            sides[number - 1] = try reader.signedVarint()
            seen |= 1 << number
        }
        guard seen == 0b11110 else { throw reader.corrupt("bounding box lacks a side") }
        let box = BoundingBox(
            southWest: Coordinate(latitude: Double(sides[3]) / 1e9, longitude: Double(sides[0]) / 1e9),
            northEast: Coordinate(latitude: Double(sides[2]) / 1e9, longitude: Double(sides[1]) / 1e9))
        guard box.southWest.isValid, box.northEast.isValid else {
            throw reader.corrupt("bounding box outside the world")
        }
        return box
    }
}
