/// Where the bytes a `ProtobufReader` walks came from, so an error can name a byte offset in the file.
struct ByteOrigin {
    /// What is being decoded ("blob header", "header block", "primitive block").
    var what: String
    /// The file offset of the buffer's first byte when `isDirect`, else the offset where its blob starts.
    var fileOffset: Int
    /// True when buffer positions map one-to-one onto file offsets (uncompressed data).
    var isDirect: Bool

    /// A `.corrupt` error at `position` in the buffer.
    func corrupt(at position: Int, _ detail: String) -> OSMError {
        if isDirect {
            let byte = fileOffset + position
            return OSMError(.corrupt, "corrupt \(what) at byte \(byte): \(detail)", byteOffset: byte)
        }
        return OSMError(
            .corrupt, "corrupt \(what) in blob at byte \(fileOffset): \(detail) (at decompressed offset \(position))",
            byteOffset: fileOffset)
    }
}

/// Protobuf wire-format decoding over borrowed bytes; every read is bounds-checked and throws, never traps.
///
/// A reader is a window `position..<end` over memory it does not own: use it only inside the
/// `withUnsafeBufferPointer` call that produced `bytes`.
struct ProtobufReader {
    /// Protobuf wire types.
    enum WireType: Int {
        case varint = 0
        case fixed64 = 1
        case lengthDelimited = 2
        case fixed32 = 5
    }

    let bytes: UnsafePointer<UInt8>
    private(set) var position: Int
    let end: Int
    let origin: ByteOrigin

    /// A reader over `buffer[range]`.
    init(_ buffer: UnsafeBufferPointer<UInt8>, range: Range<Int>, origin: ByteOrigin) {
        precondition(range.lowerBound >= 0 && range.upperBound <= buffer.count, "reader range outside its buffer")
        // An empty buffer may have no base address; nothing is ever read through it then (end == 0).
        self.bytes = buffer.baseAddress ?? UnsafePointer(bitPattern: 1)!
        self.position = range.lowerBound
        self.end = range.upperBound
        self.origin = origin
    }

    private init(bytes: UnsafePointer<UInt8>, position: Int, end: Int, origin: ByteOrigin) {
        self.bytes = bytes
        self.position = position
        self.end = end
        self.origin = origin
    }

    /// True when every byte has been read.
    @inline(__always) var isAtEnd: Bool { position >= end }

    /// A `.corrupt` error at the current position.
    func corrupt(_ detail: String) -> OSMError { origin.corrupt(at: position, detail) }

    /// One base-128 varint (at most 10 bytes).
    @inline(__always) mutating func varint() throws(OSMError) -> UInt64 {
        guard position < end else { throw corrupt("varint runs past the end of its message") }
        let first = bytes[position]
        if first < 0x80 {
            position += 1
            return UInt64(first)
        }
        return try longVarint()
    }

    private mutating func longVarint() throws(OSMError) -> UInt64 {
        var result: UInt64 = 0
        var shift: UInt64 = 0
        while shift < 70 {
            guard position < end else { throw corrupt("varint runs past the end of its message") }
            let byte = bytes[position]
            position += 1
            result |= UInt64(byte & 0x7f) << shift
            if byte < 0x80 { return result }
            shift += 7
        }
        throw corrupt("varint longer than 10 bytes")
    }

    /// A zigzag-encoded signed varint (`sint32`/`sint64`).
    @inline(__always) mutating func signedVarint() throws(OSMError) -> Int64 {
        let raw = try varint()
        return Int64(bitPattern: (raw >> 1) ^ (0 &- (raw & 1)))
    }

    /// A plain `int32`/`int64` varint (two's complement, negative values take 10 bytes).
    @inline(__always) mutating func int64() throws(OSMError) -> Int64 {
        Int64(bitPattern: try varint())
    }

    /// The next field's number and wire type, or nil at the end of the message.
    mutating func field() throws(OSMError) -> (number: Int, wireType: WireType)? {
        guard position < end else { return nil }
        let key = try varint()
        let number = key >> 3
        guard number > 0, number <= 0x1FFF_FFFF else { throw corrupt("invalid field number \(number)") }
        guard let wireType = WireType(rawValue: Int(key & 7)) else {
            throw corrupt("unsupported wire type \(key & 7) for field \(number)")
        }
        return (Int(number), wireType)
    }

    /// A length-delimited field's bytes as a reader of their own; this reader moves past them.
    mutating func message() throws(OSMError) -> ProtobufReader {
        let length = try varint()
        guard length <= UInt64(end - position) else {
            throw corrupt("length \(length) runs past the end of its message (\(end - position) bytes left)")
        }
        let sub = ProtobufReader(bytes: bytes, position: position, end: position + Int(length), origin: origin)
        position += Int(length)
        return sub
    }

    /// A length-delimited field's bytes as a string (invalid UTF-8 is repaired, not trusted).
    mutating func string() throws(OSMError) -> String {
        let sub = try message()
        return sub.remainingString()
    }

    /// The unread bytes as a string.
    func remainingString() -> String {
        String(decoding: UnsafeBufferPointer(start: bytes + position, count: end - position), as: UTF8.self)
    }

    /// A reader over another part of the same buffer (a range this reader or its parent handed out).
    func slice(_ range: Range<Int>) -> ProtobufReader {
        ProtobufReader(bytes: bytes, position: range.lowerBound, end: range.upperBound, origin: origin)
    }

    /// An empty reader over the same buffer, for a packed field that is absent.
    var empty: ProtobufReader { slice(end..<end) }

    /// How many varints the unread bytes hold (bytes without the continuation bit), for reserving capacity.
    func varintCount() -> Int {
        var count = 0
        for index in position..<end where bytes[index] < 0x80 { count += 1 }
        return count
    }

    /// The unread bytes' bounds in the underlying buffer.
    var remainingRange: Range<Int> { position..<end }

    /// Checks that a field has the wire type the schema gives it.
    func expect(_ wireType: WireType, _ actual: WireType, field: String) throws(OSMError) {
        guard wireType == actual else { throw corrupt("field \(field) has wire type \(actual.rawValue)") }
    }

    /// Skips one field's value.
    mutating func skip(_ wireType: WireType) throws(OSMError) {
        switch wireType {
        case .varint: _ = try varint()
        case .fixed64: try advance(8)
        case .fixed32: try advance(4)
        case .lengthDelimited: _ = try message()
        }
    }

    private mutating func advance(_ count: Int) throws(OSMError) {
        guard end - position >= count else { throw corrupt("fixed-size field runs past the end of its message") }
        position += count
    }
}
