/// A protobuf encoder for hand-built PBF files in tests (the reader's own decoder is what is under test).
struct ProtobufWriter {
    var bytes: [UInt8] = []

    mutating func varint(_ value: UInt64) {
        var value = value
        while value >= 0x80 {
            bytes.append(UInt8(value & 0x7f) | 0x80)
            value >>= 7
        }
        bytes.append(UInt8(value))
    }

    mutating func key(_ field: Int, wireType: Int) { varint(UInt64(field << 3 | wireType)) }

    /// An `int32`/`int64`/`uint32`/enum field.
    mutating func int(_ field: Int, _ value: Int64) {
        key(field, wireType: 0)
        varint(UInt64(bitPattern: value))
    }

    /// A `sint32`/`sint64` (zigzag) field.
    mutating func sint(_ field: Int, _ value: Int64) {
        key(field, wireType: 0)
        varint(Self.zigzag(value))
    }

    mutating func bytes(_ field: Int, _ value: [UInt8]) {
        key(field, wireType: 2)
        varint(UInt64(value.count))
        bytes += value
    }

    mutating func string(_ field: Int, _ value: String) { bytes(field, Array(value.utf8)) }

    mutating func message(_ field: Int, _ build: (inout ProtobufWriter) -> Void) {
        var inner = ProtobufWriter()
        build(&inner)
        bytes(field, inner.bytes)
    }

    /// A packed repeated `int32`/`uint32`/enum field.
    mutating func packed(_ field: Int, _ values: [Int64]) {
        var inner = ProtobufWriter()
        for value in values { inner.varint(UInt64(bitPattern: value)) }
        bytes(field, inner.bytes)
    }

    /// A packed repeated `sint64` field of the values' deltas (as PBF stores ids, coordinates and refs).
    mutating func packedDeltas(_ field: Int, _ values: [Int64]) {
        var inner = ProtobufWriter()
        var previous: Int64 = 0
        for value in values {
            inner.varint(Self.zigzag(value &- previous))
            previous = value
        }
        bytes(field, inner.bytes)
    }

    static func zigzag(_ value: Int64) -> UInt64 { UInt64(bitPattern: (value << 1) ^ (value >> 63)) }
}

/// Builds PBF files from blocks: every blob is stored raw (uncompressed).
enum PBFFixture {
    /// A framed blob: 4-byte big-endian header length, `BlobHeader`, `Blob` holding `payload` raw.
    static func blob(type: String, payload: [UInt8]) -> [UInt8] {
        var blob = ProtobufWriter()
        blob.bytes(1, payload)
        blob.int(2, Int64(payload.count))
        return frame(type: type, blob: blob.bytes)
    }

    /// A framed blob around an already-encoded `Blob` message.
    static func frame(type: String, blob: [UInt8]) -> [UInt8] {
        var header = ProtobufWriter()
        header.string(1, type)
        header.int(3, Int64(blob.count))
        let length = UInt32(header.bytes.count)
        return withUnsafeBytes(of: length.bigEndian, Array.init) + header.bytes + blob
    }

    /// A `HeaderBlock`.
    static func headerBlock(
        required: [String] = ["OsmSchema-V0.6", "DenseNodes"], optional: [String] = [],
        boundingBoxNanodegrees: (left: Int64, right: Int64, top: Int64, bottom: Int64)? = nil
    ) -> [UInt8] {
        var header = ProtobufWriter()
        if let box = boundingBoxNanodegrees {
            header.message(1) {
                $0.sint(1, box.left)
                $0.sint(2, box.right)
                $0.sint(3, box.top)
                $0.sint(4, box.bottom)
            }
        }
        for feature in required { header.string(4, feature) }
        for feature in optional { header.string(5, feature) }
        header.string(16, "cab-test")
        return header.bytes
    }

    /// A whole file: the header blob, then one `OSMData` blob per block.
    static func file(header: [UInt8] = headerBlock(), blocks: [[UInt8]]) -> [UInt8] {
        blocks.reduce(blob(type: "OSMHeader", payload: header)) { $0 + blob(type: "OSMData", payload: $1) }
    }

    /// A `PrimitiveBlock` with a string table, whose groups `build` writes.
    static func block(
        strings: [String], granularity: Int64? = nil, latOffset: Int64? = nil, lonOffset: Int64? = nil,
        _ build: (inout ProtobufWriter) -> Void
    ) -> [UInt8] {
        var block = ProtobufWriter()
        block.message(1) { table in for text in strings { table.string(1, text) } }
        build(&block)
        if let granularity { block.int(17, granularity) }
        if let latOffset { block.int(19, latOffset) }
        if let lonOffset { block.int(20, lonOffset) }
        return block.bytes
    }
}
