import CabZlib

/// One framed blob of a PBF file: a 4-byte length, a `BlobHeader`, then a `Blob` of `dataSize` bytes.
struct BlobFrame {
    /// What the blob header says the blob holds.
    enum Kind: Equatable {
        case header
        case data
        case other(String)
    }

    /// What it holds.
    var kind: Kind
    /// Where its 4-byte header length starts in the file.
    var offset: Int
    /// Where its `Blob` message starts in the file.
    var dataOffset: Int
    /// The `Blob` message's length.
    var dataSize: Int
    /// The offset just past it: where the next blob starts.
    var end: Int { dataOffset + dataSize }
}

/// Where a blob's decoded payload sits: inside the blob's own bytes (raw) or in the inflate buffer.
enum BlobPayload {
    case raw(Range<Int>)
    case inflated(count: Int)
}

/// Reads a PBF file blob by blob with bounded memory (one blob and its decompressed payload at a time).
final class BlobStream {
    /// The PBF limit on a `BlobHeader`.
    static let maxHeaderSize = 64 * 1024
    /// The PBF limit on a `Blob` and on its decompressed payload.
    static let maxBlobSize = 32 * 1024 * 1024

    let file: PBFFile
    /// Where the next blob starts.
    private(set) var offset: Int
    private var headerBuffer = [UInt8](repeating: 0, count: 256)
    private var dataBuffer = [UInt8](repeating: 0, count: 1 << 16)
    private var inflated = [UInt8](repeating: 0, count: 1 << 16)
    private let inflater = Inflater()

    init(file: PBFFile, offset: Int) {
        self.file = file
        self.offset = offset
    }

    /// Reads the next blob's header and bytes; nil at a clean end of file.
    func next() throws(OSMError) -> BlobFrame? {
        let start = offset
        let lengthBytes = try file.read(into: &headerBuffer, count: 4, at: start)
        if lengthBytes == 0 { return nil }
        guard lengthBytes == 4 else {
            throw Self.truncated("blob header length", at: start, expected: 4, found: lengthBytes)
        }
        let headerLength = headerBuffer[0..<4].reduce(0) { $0 << 8 | Int($1) }
        guard headerLength <= Self.maxHeaderSize else {
            let hint = start == 0 ? " (is this an OSM PBF file?)" : ""
            throw OSMError(
                .corrupt,
                "corrupt blob header at byte \(start): length \(headerLength) exceeds the 64 KiB limit\(hint)",
                byteOffset: start)
        }
        let headerOffset = start + 4
        let headerBytes = try file.read(into: &headerBuffer, count: headerLength, at: headerOffset)
        guard headerBytes == headerLength else {
            throw Self.truncated("blob header", at: headerOffset, expected: headerLength, found: headerBytes)
        }
        let origin = ByteOrigin(what: "blob header", fileOffset: headerOffset, isDirect: true)
        let (kind, dataSize) = try headerBuffer.withUnsafeBufferPointer { buffer throws(OSMError) in
            var reader = ProtobufReader(buffer, range: 0..<headerLength, origin: origin)
            return try Self.decodeBlobHeader(&reader)
        }
        let dataOffset = headerOffset + headerLength
        let dataBytes = try file.read(into: &dataBuffer, count: dataSize, at: dataOffset)
        guard dataBytes == dataSize else {
            throw Self.truncated("blob", at: dataOffset, expected: dataSize, found: dataBytes)
        }
        offset = dataOffset + dataSize
        return BlobFrame(kind: kind, offset: start, dataOffset: dataOffset, dataSize: dataSize)
    }

    /// Decodes the `Blob` last read by `next()`: finds its raw bytes or inflates its zlib data.
    func decompress(_ frame: BlobFrame) throws(OSMError) -> BlobPayload {
        let origin = ByteOrigin(what: "blob", fileOffset: frame.dataOffset, isDirect: true)
        return try dataBuffer.withUnsafeBufferPointer { buffer throws(OSMError) in
            var reader = ProtobufReader(buffer, range: 0..<frame.dataSize, origin: origin)
            var data: (kind: Int, range: Range<Int>)?
            var rawSize: Int?
            while let (number, wireType) = try reader.field() {
                switch number {
                case 2:
                    try reader.expect(.varint, wireType, field: "raw_size")
                    let at = reader.position
                    let size = try reader.int64()
                    guard size >= 0, size <= Self.maxBlobSize else {
                        throw reader.origin.corrupt(at: at, "raw_size \(size) is outside 0...32 MiB, the PBF limit")
                    }
                    rawSize = Int(size)
                case 1, 3, 4, 5, 6, 7:
                    try reader.expect(.lengthDelimited, wireType, field: "data")
                    guard data == nil else { throw reader.corrupt("blob holds more than one kind of data") }
                    data = (number, try reader.message().remainingRange)
                default:
                    try reader.skip(wireType)
                }
            }
            guard let data else { throw reader.corrupt("blob holds no data") }
            switch data.kind {
            case 1:
                return .raw(data.range)
            case 3:
                let input = UnsafeBufferPointer(rebasing: buffer[data.range])
                do throws(Inflater.Failure) {
                    let count = try inflater.inflate(
                        input, into: &inflated, expectedSize: rawSize, limit: Self.maxBlobSize)
                    return .inflated(count: count)
                } catch {
                    switch error {
                    case .corrupt(let detail):
                        throw OSMError(
                            .corrupt, "corrupt zlib data in blob at byte \(frame.offset): \(detail)",
                            byteOffset: frame.offset)
                    case .tooLarge(let limit):
                        throw OSMError(
                            .corrupt,
                            "blob at byte \(frame.offset) inflates to more than \(limit) bytes, the PBF limit",
                            byteOffset: frame.offset)
                    }
                }
            default:
                let name = [4: "lzma", 5: "bzip2", 6: "lz4", 7: "zstd"][data.kind] ?? "unknown"
                throw OSMError(
                    .unsupported,
                    "unsupported compression in blob at byte \(frame.offset): \(name) (this reader handles raw and "
                        + "zlib; convert with `osmium cat IN -o OUT.osm.pbf`)",
                    byteOffset: frame.offset)
            }
        }
    }

    /// Calls `body` with a reader over a payload returned by `decompress(_:)`.
    func withReader<R, E: Error>(
        over payload: BlobPayload, of frame: BlobFrame, what: String, _ body: (inout ProtobufReader) throws(E) -> R
    ) throws(E) -> R {
        switch payload {
        case .raw(let range):
            let origin = ByteOrigin(what: what, fileOffset: frame.dataOffset, isDirect: true)
            return try dataBuffer.withUnsafeBufferPointer { buffer throws(E) in
                var reader = ProtobufReader(buffer, range: range, origin: origin)
                return try body(&reader)
            }
        case .inflated(let count):
            let origin = ByteOrigin(what: what, fileOffset: frame.offset, isDirect: false)
            return try inflated.withUnsafeBufferPointer { buffer throws(E) in
                var reader = ProtobufReader(buffer, range: 0..<count, origin: origin)
                return try body(&reader)
            }
        }
    }

    private static func decodeBlobHeader(_ reader: inout ProtobufReader) throws(OSMError) -> (BlobFrame.Kind, Int) {
        var type: String?
        var dataSize: Int64?
        var dataSizePosition = 0
        while let (number, wireType) = try reader.field() {
            switch number {
            case 1:
                try reader.expect(.lengthDelimited, wireType, field: "type")
                type = try reader.string()
            case 3:
                try reader.expect(.varint, wireType, field: "datasize")
                dataSizePosition = reader.position
                dataSize = try reader.int64()
            default:
                try reader.skip(wireType)
            }
        }
        guard let type else { throw reader.corrupt("blob header has no type") }
        guard let dataSize else { throw reader.corrupt("blob header has no datasize") }
        guard dataSize >= 0, dataSize <= Int64(maxBlobSize) else {
            throw reader.origin.corrupt(
                at: dataSizePosition, "datasize \(dataSize) is outside 0...32 MiB, the PBF limit")
        }
        let kind: BlobFrame.Kind =
            switch type {
            case "OSMHeader": .header
            case "OSMData": .data
            default: .other(type)
            }
        return (kind, Int(dataSize))
    }

    private static func truncated(_ what: String, at offset: Int, expected: Int, found: Int) -> OSMError {
        OSMError(
            .truncated, "truncated \(what) at byte \(offset): expected \(expected) bytes, found \(found)",
            byteOffset: offset)
    }
}
