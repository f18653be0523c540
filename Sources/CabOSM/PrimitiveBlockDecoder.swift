import CabGeo

/// Decodes `PrimitiveBlock` messages into elements for a handler, reusing its buffers from block to block.
///
/// Strings in the block's table become `String`s lazily, once per block, and only when an element that is
/// delivered uses them; elements without tags get the empty dictionary (no allocation).
struct PrimitiveBlockDecoder {
    /// What to decode.
    var options: PBFReader.Options
    /// What has been delivered so far.
    var summary = PBFReadSummary()

    private var stringRanges: [Range<Int>] = []
    private var strings: [String?] = []
    private var groups: [Range<Int>] = []
    private var granularity: Int64 = 100
    private var latOffset: Int64 = 0
    private var lonOffset: Int64 = 0

    init(options: PBFReader.Options) { self.options = options }

    /// Decodes one block and hands its elements to `handler` in file order.
    mutating func decode<Handler: OSMElementHandler>(_ block: inout ProtobufReader, into handler: inout Handler) throws {
        try scanBlock(&block)
        for range in groups {
            var group = block.slice(range)
            while let (number, wireType) = try group.field() {
                switch number {
                case 1 where options.nodes:
                    try group.expect(.lengthDelimited, wireType, field: "nodes")
                    var node = try group.message()
                    try handler.handle(try decodeNode(&node))
                    summary.nodes += 1
                case 2 where options.nodes:
                    try group.expect(.lengthDelimited, wireType, field: "dense")
                    var dense = try group.message()
                    try decodeDenseNodes(&dense, into: &handler)
                case 3 where options.ways:
                    try group.expect(.lengthDelimited, wireType, field: "ways")
                    var way = try group.message()
                    try handler.handle(try decodeWay(&way))
                    summary.ways += 1
                case 4 where options.relations:
                    try group.expect(.lengthDelimited, wireType, field: "relations")
                    var relation = try group.message()
                    try handler.handle(try decodeRelation(&relation))
                    summary.relations += 1
                default:
                    try group.skip(wireType)
                }
            }
        }
    }

    /// First pass: the string table, the groups' extents and the coordinate scale (written after the groups).
    private mutating func scanBlock(_ block: inout ProtobufReader) throws(OSMError) {
        stringRanges.removeAll(keepingCapacity: true)
        groups.removeAll(keepingCapacity: true)
        granularity = 100
        latOffset = 0
        lonOffset = 0
        while let (number, wireType) = try block.field() {
            switch number {
            case 1:
                try block.expect(.lengthDelimited, wireType, field: "stringtable")
                var table = try block.message()
                while let (entry, entryWireType) = try table.field() {
                    guard entry == 1 else {
                        try table.skip(entryWireType)
                        continue
                    }
                    try table.expect(.lengthDelimited, entryWireType, field: "stringtable.s")
                    stringRanges.append(try table.message().remainingRange)
                }
            case 2:
                try block.expect(.lengthDelimited, wireType, field: "primitivegroup")
                groups.append(try block.message().remainingRange)
            case 17:
                try block.expect(.varint, wireType, field: "granularity")
                let at = block.position
                granularity = try block.int64()
                guard granularity > 0, granularity <= 1_000_000_000 else {
                    throw block.origin.corrupt(at: at, "granularity \(granularity) is outside 1...1e9")
                }
            case 18:
                try block.expect(.varint, wireType, field: "date_granularity")
                let at = block.position
                let dateGranularity = try block.int64()
                guard dateGranularity > 0 else { throw block.origin.corrupt(at: at, "date_granularity \(dateGranularity) <= 0") }
            case 19:
                try block.expect(.varint, wireType, field: "lat_offset")
                latOffset = try block.int64()
            case 20:
                try block.expect(.varint, wireType, field: "lon_offset")
                lonOffset = try block.int64()
            default:
                try block.skip(wireType)
            }
        }
        strings.removeAll(keepingCapacity: true)
        strings.append(contentsOf: repeatElement(nil, count: stringRanges.count))
    }

    /// The string at `index` in the block's table.
    @inline(__always)
    private mutating func string(_ index: UInt64, _ reader: ProtobufReader) throws(OSMError) -> String {
        guard index < UInt64(strings.count) else {
            throw reader.corrupt("string index \(index) out of range (the table has \(strings.count))")
        }
        let slot = Int(index)
        if let cached = strings[slot] { return cached }
        let range = stringRanges[slot]
        let text = String(
            decoding: UnsafeBufferPointer(start: reader.bytes + range.lowerBound, count: range.count), as: UTF8.self)
        strings[slot] = text
        return text
    }

    /// Tags from parallel packed `keys` and `vals` string indexes.
    private mutating func tags(keys: ProtobufReader, values: ProtobufReader) throws(OSMError) -> [String: String] {
        var keys = keys
        var values = values
        guard !keys.isAtEnd else {
            guard values.isAtEnd else { throw values.corrupt("more tag values than keys") }
            return [:]
        }
        var tags: [String: String] = [:]
        while !keys.isAtEnd {
            guard !values.isAtEnd else { throw keys.corrupt("more tag keys than values") }
            let key = try string(keys.varint(), keys)
            tags[key] = try string(values.varint(), values)
        }
        guard values.isAtEnd else { throw values.corrupt("more tag values than keys") }
        return tags
    }

    /// Degrees from stored units: `1e-9 * (offset + granularity * value)`, refusing overflow and off-world points.
    @inline(__always)
    private func coordinate(latitude: Int64, longitude: Int64, _ reader: ProtobufReader) throws(OSMError) -> Coordinate {
        let (latScaled, latOverflow) = granularity.multipliedReportingOverflow(by: latitude)
        let (lonScaled, lonOverflow) = granularity.multipliedReportingOverflow(by: longitude)
        let (latNano, latSumOverflow) = latOffset.addingReportingOverflow(latScaled)
        let (lonNano, lonSumOverflow) = lonOffset.addingReportingOverflow(lonScaled)
        guard !(latOverflow || lonOverflow || latSumOverflow || lonSumOverflow),
            (-90_000_000_000...90_000_000_000).contains(latNano),
            (-180_000_000_000...180_000_000_000).contains(lonNano)
        else {
            throw reader.corrupt("coordinate \(latitude),\(longitude) (granularity \(granularity)) is off the world")
        }
        return Coordinate(latitude: Double(latNano) / 1e9, longitude: Double(lonNano) / 1e9)
    }
}

extension PrimitiveBlockDecoder {
    /// A `DenseNodes` message: parallel delta-coded ids, lats and lons, and `0`-delimited keys_vals.
    private mutating func decodeDenseNodes<Handler: OSMElementHandler>(
        _ dense: inout ProtobufReader, into handler: inout Handler
    ) throws {
        var ids = dense.empty
        var lats = dense.empty
        var lons = dense.empty
        var keysValues = dense.empty
        while let (number, wireType) = try dense.field() {
            switch number {
            case 1, 8, 9, 10:
                try dense.expect(.lengthDelimited, wireType, field: "dense nodes")
                let packed = try dense.message()
                switch number {
                case 1: ids = packed
                case 8: lats = packed
                case 9: lons = packed
                default: keysValues = packed
                }
            default:
                try dense.skip(wireType)
            }
        }
        let withTags = options.nodeTags && !keysValues.isAtEnd
        var id: Int64 = 0
        var latitude: Int64 = 0
        var longitude: Int64 = 0
        while !ids.isAtEnd {
            guard !lats.isAtEnd, !lons.isAtEnd else { throw ids.corrupt("dense nodes have fewer lats/lons than ids") }
            id &+= try ids.signedVarint()
            latitude &+= try lats.signedVarint()
            longitude &+= try lons.signedVarint()
            var tags: [String: String] = [:]
            if withTags {
                while true {
                    guard !keysValues.isAtEnd else { throw keysValues.corrupt("dense keys_vals end before node \(id)") }
                    let key = try keysValues.varint()
                    if key == 0 { break }
                    let value = try keysValues.varint()
                    tags[try string(key, keysValues)] = try string(value, keysValues)
                }
            }
            let point = try coordinate(latitude: latitude, longitude: longitude, lats)
            try handler.handle(OSMNode(id: id, coordinate: point, tags: tags))
            summary.nodes += 1
        }
        guard lats.isAtEnd, lons.isAtEnd else { throw lats.corrupt("dense nodes have more lats/lons than ids") }
        guard !withTags || keysValues.isAtEnd else { throw keysValues.corrupt("dense keys_vals outlast the nodes") }
    }

    /// A plain `Node` message.
    private mutating func decodeNode(_ node: inout ProtobufReader) throws(OSMError) -> OSMNode {
        var id: Int64?
        var latitude: Int64?
        var longitude: Int64?
        var keys = node.empty
        var values = node.empty
        while let (number, wireType) = try node.field() {
            switch number {
            case 1, 8, 9:
                try node.expect(.varint, wireType, field: "node")
                let value = try node.signedVarint()
                if number == 1 { id = value } else if number == 8 { latitude = value } else { longitude = value }
            case 2, 3:
                try node.expect(.lengthDelimited, wireType, field: "node tags")
                if number == 2 { keys = try node.message() } else { values = try node.message() }
            default:
                try node.skip(wireType)
            }
        }
        guard let id, let latitude, let longitude else { throw node.corrupt("node lacks its id, lat or lon") }
        let point = try coordinate(latitude: latitude, longitude: longitude, node)
        let tags = options.nodeTags ? try tags(keys: keys, values: values) : [:]
        return OSMNode(id: id, coordinate: point, tags: tags)
    }

    /// A `Way` message with delta-coded node refs.
    private mutating func decodeWay(_ way: inout ProtobufReader) throws(OSMError) -> OSMWay {
        var id: Int64?
        var keys = way.empty
        var values = way.empty
        var refs = way.empty
        while let (number, wireType) = try way.field() {
            switch number {
            case 1:
                try way.expect(.varint, wireType, field: "way id")
                id = try way.int64()
            case 2, 3, 8:
                try way.expect(.lengthDelimited, wireType, field: "way")
                let packed = try way.message()
                if number == 2 { keys = packed } else if number == 3 { values = packed } else { refs = packed }
            default:
                try way.skip(wireType)
            }
        }
        guard let id else { throw way.corrupt("way lacks its id") }
        var nodeIDs: [Int64] = []
        nodeIDs.reserveCapacity(refs.varintCount())
        var ref: Int64 = 0
        while !refs.isAtEnd {
            ref &+= try refs.signedVarint()
            nodeIDs.append(ref)
        }
        return OSMWay(id: id, nodeIDs: nodeIDs, tags: try tags(keys: keys, values: values))
    }

    /// A `Relation` message: parallel roles_sid, delta-coded memids and types.
    private mutating func decodeRelation(_ relation: inout ProtobufReader) throws(OSMError) -> OSMRelation {
        var id: Int64?
        var keys = relation.empty
        var values = relation.empty
        var roles = relation.empty
        var memberIDs = relation.empty
        var types = relation.empty
        while let (number, wireType) = try relation.field() {
            switch number {
            case 1:
                try relation.expect(.varint, wireType, field: "relation id")
                id = try relation.int64()
            case 2, 3, 8, 9, 10:
                try relation.expect(.lengthDelimited, wireType, field: "relation")
                let packed = try relation.message()
                switch number {
                case 2: keys = packed
                case 3: values = packed
                case 8: roles = packed
                case 9: memberIDs = packed
                default: types = packed
                }
            default:
                try relation.skip(wireType)
            }
        }
        guard let id else { throw relation.corrupt("relation lacks its id") }
        var members: [OSMMember] = []
        members.reserveCapacity(memberIDs.varintCount())
        var ref: Int64 = 0
        while !memberIDs.isAtEnd {
            guard !roles.isAtEnd, !types.isAtEnd else {
                throw memberIDs.corrupt("relation \(id) has fewer roles/types than members")
            }
            ref &+= try memberIDs.signedVarint()
            let role = try string(roles.varint(), roles)
            let type: OSMElementType
            switch try types.varint() {
            case 0: type = .node
            case 1: type = .way
            case 2: type = .relation
            case let other: throw types.corrupt("relation \(id) has a member of unknown type \(other)")
            }
            members.append(OSMMember(type: type, ref: ref, role: role))
        }
        guard roles.isAtEnd, types.isAtEnd else {
            throw roles.corrupt("relation \(id) has more roles/types than members")
        }
        return OSMRelation(id: id, members: members, tags: try tags(keys: keys, values: values))
    }
}
