import CZlib

/// zlib's one-shot calls (compression for PNG images and HTTP bodies, the CRC of PNG chunks).
public enum Zlib {
    /// `bytes` compressed in the zlib format at `level` 0...9 (`compress2`).
    public static func compress(_ bytes: [UInt8], level: Int32 = 9) -> [UInt8] {
        var length = compressBound(uLong(bytes.count))
        var out = [UInt8](repeating: 0, count: Int(length))
        let rc = out.withUnsafeMutableBufferPointer { dst in
            bytes.withUnsafeBufferPointer { src in
                compress2(dst.baseAddress, &length, src.baseAddress, uLong(bytes.count), level)
            }
        }
        // compress2 cannot fail with a buffer of compressBound's size and valid arguments.
        precondition(rc == Z_OK, "compress2 failed: \(rc)")
        return Array(out.prefix(Int(length)))
    }

    /// `bytes` compressed as one gzip member (RFC 1952), as HTTP's `Content-Encoding: gzip` sends it, at `level`
    /// 0...9 (`deflateInit2` with the gzip wrapper, one `deflate` with `Z_FINISH` into `deflateBound` bytes,
    /// `deflateEnd`).
    /// - Complexity: O(n).
    public static func gzip(_ bytes: [UInt8], level: Int32 = 6) -> [UInt8] {
        precondition((0...9).contains(level), "gzip level \(level) outside 0...9")
        // z_stream must not move between deflateInit2 and deflateEnd (zlib keeps a pointer back to it).
        let stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
        stream.initialize(to: z_stream())
        defer {
            stream.deinitialize(count: 1)
            stream.deallocate()
        }
        // Fails only without memory or with bad arguments (the level is checked above).
        let initialized = cab_deflate_init_gzip(stream, level)
        precondition(initialized == Z_OK, "deflateInit2 failed: \(initialized)")
        defer { deflateEnd(stream) }
        var out = [UInt8](repeating: 0, count: Int(deflateBound(stream, uLong(bytes.count))))
        let (status, produced) = out.withUnsafeMutableBufferPointer { dst in
            bytes.withUnsafeBufferPointer { src in
                stream.pointee.next_in = UnsafeMutablePointer(mutating: src.baseAddress)
                stream.pointee.avail_in = uInt(src.count)
                stream.pointee.next_out = dst.baseAddress
                stream.pointee.avail_out = uInt(dst.count)
                let status = deflate(stream, Z_FINISH)
                return (status, dst.count - Int(stream.pointee.avail_out))
            }
        }
        // deflateBound's room is enough for one Z_FINISH call to end the stream (zlib's documented promise).
        precondition(status == Z_STREAM_END, "deflate did not finish in deflateBound's room: \(status)")
        out.removeSubrange(produced...)
        return out
    }

    /// The CRC-32 of `bytes` (`crc32`), as PNG and gzip use it.
    public static func crc32(_ bytes: [UInt8]) -> UInt32 {
        UInt32(bytes.withUnsafeBufferPointer { CZlib.crc32(0, $0.baseAddress, uInt($0.count)) })
    }
}
