import CZlib

/// zlib's one-shot calls (compression for PNG images, the CRC of their chunks).
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

    /// The CRC-32 of `bytes` (`crc32`), as PNG and gzip use it.
    public static func crc32(_ bytes: [UInt8]) -> UInt32 {
        UInt32(bytes.withUnsafeBufferPointer { CZlib.crc32(0, $0.baseAddress, uInt($0.count)) })
    }
}
