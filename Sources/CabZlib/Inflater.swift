import CZlib

/// A reusable zlib decompressor (`inflate`) writing into a growable byte buffer.
public final class Inflater {
    /// The wrapper around the deflate data.
    public enum Format: Sendable {
        /// The zlib format (RFC 1950), as OSM PBF blobs and PNG use it (`inflateInit`).
        case zlib
        /// One gzip member (RFC 1952), as HTTP's `Content-Encoding: gzip` sends it (`inflateInit2`, 31 window bits).
        case gzip
    }

    /// Why inflating failed, turned into the caller's error (which knows the file offset).
    public enum Failure: Error {
        case corrupt(String)
        case tooLarge(limit: Int)
    }

    // z_stream must not move once initialised (zlib keeps a pointer back to it), so it lives on the heap.
    private let stream: UnsafeMutablePointer<z_stream>
    private var isInitialized = false
    private let format: Format

    /// A decompressor of `format`; zlib's state is made on the first `inflate`.
    public init(format: Format = .zlib) {
        self.format = format
        stream = .allocate(capacity: 1)
        stream.initialize(to: z_stream())
    }

    deinit {
        if isInitialized { inflateEnd(stream) }
        stream.deinitialize(count: 1)
        stream.deallocate()
    }

    /// Inflates all of `input` into the start of `output`, returning the number of bytes produced.
    /// With `expectedSize`, the output must be exactly that long; otherwise it may grow up to `limit`.
    public func inflate(
        _ input: UnsafeBufferPointer<UInt8>, into output: inout [UInt8], expectedSize: Int?, limit: Int
    ) throws(Failure) -> Int {
        if isInitialized {
            guard inflateReset(stream) == Z_OK else { throw .corrupt("zlib reset failed") }
        } else {
            let status = format == .zlib ? cab_inflate_init(stream) : cab_inflate_init_gzip(stream)
            guard status == Z_OK else { throw .corrupt("zlib initialisation failed") }
            isInitialized = true
        }
        var capacity = expectedSize ?? min(limit, max(input.count * 4, 1 << 16))
        let hardLimit = expectedSize ?? limit
        stream.pointee.next_in = UnsafeMutablePointer(mutating: input.baseAddress)
        stream.pointee.avail_in = uInt(input.count)
        var produced = 0
        while true {
            if output.count < max(capacity, 1) {
                // Grow in place: bytes already produced must survive.
                output.append(contentsOf: repeatElement(0, count: max(capacity, 1) - output.count))
            }
            let status = output.withUnsafeMutableBufferPointer { out -> Int32 in
                stream.pointee.next_out = out.baseAddress! + produced
                stream.pointee.avail_out = uInt(capacity - produced)
                let status = CZlib.inflate(stream, Z_FINISH)
                produced = capacity - Int(stream.pointee.avail_out)
                return status
            }
            switch status {
            case Z_STREAM_END:
                if let expectedSize, produced != expectedSize {
                    throw .corrupt("zlib data inflates to \(produced) bytes, raw_size says \(expectedSize)")
                }
                return produced
            case Z_OK, Z_BUF_ERROR:
                if produced < capacity {
                    throw .corrupt("zlib data ends before its stream does")
                }
                if capacity >= hardLimit {
                    if expectedSize != nil {
                        throw .corrupt("zlib data inflates to more than raw_size (\(hardLimit) bytes)")
                    }
                    throw .tooLarge(limit: hardLimit)
                }
                capacity = min(hardLimit, capacity * 2)
            default:
                let detail = stream.pointee.msg.map { String(cString: $0) } ?? "error \(status)"
                throw .corrupt("zlib: \(detail)")
            }
        }
    }
}
