#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A file read or written in whole arrays (`fopen`, `fread`, `fwrite`), native little-endian.
final class BinaryFile {
    private let handle: UnsafeMutablePointer<FILE>
    let path: String

    /// Opens `path` with `mode` ("rb", "wb").
    init(path: String, mode: String) throws(RoutingError) {
        guard let handle = fopen(path, mode) else {
            throw RoutingError(.fileAccess, "cannot open \(path): \(String(cString: strerror(errno)))")
        }
        self.handle = handle
        self.path = path
    }

    deinit { fclose(handle) }

    /// Writes the bytes of `values` (`fwrite`).
    func write<T: BitwiseCopyable>(_ values: [T]) throws(RoutingError) {
        let ok = values.withUnsafeBytes { bytes in
            bytes.isEmpty || fwrite(bytes.baseAddress, 1, bytes.count, handle) == bytes.count
        }
        guard ok else { throw RoutingError(.fileAccess, "cannot write \(path): \(String(cString: strerror(errno)))") }
    }

    /// Flushes and checks for a late write error (`fflush`).
    func flush() throws(RoutingError) {
        guard fflush(handle) == 0 else {
            throw RoutingError(.fileAccess, "cannot write \(path): \(String(cString: strerror(errno)))")
        }
    }

    /// Reads `count` values in one call (`fread`).
    func read<T: BitwiseCopyable>(_ type: T.Type, count: Int) throws(RoutingError) -> [T] {
        guard count >= 0, count <= remainingBytes() / max(MemoryLayout<T>.stride, 1) else {
            throw RoutingError(.corruptFile, "\(path) is truncated or damaged: an array runs past its end")
        }
        var failed = false
        let values = [T](unsafeUninitializedCapacity: count) { buffer, initialized in
            let bytes = count * MemoryLayout<T>.stride
            if bytes > 0 && fread(UnsafeMutableRawPointer(buffer.baseAddress!), 1, bytes, handle) != bytes {
                failed = true
                // Bitwise-copyable values need no cleanup; zero what was not read so the array is defined.
                memset(UnsafeMutableRawPointer(buffer.baseAddress!), 0, bytes)
            }
            initialized = count
        }
        if failed { throw RoutingError(.corruptFile, "\(path) is truncated: cannot read \(count) values") }
        return values
    }

    /// Bytes between the current position and the end of the file.
    func remainingBytes() -> Int {
        let here = ftell(handle)
        fseek(handle, 0, SEEK_END)
        let end = ftell(handle)
        fseek(handle, here, SEEK_SET)
        return end - here
    }
}

/// Identifies a map file by its content: FNV-1a (64 bit) over its bytes and length.
public enum MapFingerprint {
    /// The fingerprint of the file at `path`.
    /// - Complexity: O(file size), read in 1 MiB chunks.
    public static func ofFile(atPath path: String) throws(RoutingError) -> UInt64 {
        guard let handle = fopen(path, "rb") else {
            throw RoutingError(.fileAccess, "cannot open \(path): \(String(cString: strerror(errno)))")
        }
        defer { fclose(handle) }
        var hash = FNV1a()
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        var length: UInt64 = 0
        while true {
            let n = buffer.withUnsafeMutableBytes { fread($0.baseAddress, 1, $0.count, handle) }
            if n == 0 { break }
            hash.add(buffer[0..<n])
            length += UInt64(n)
        }
        guard ferror(handle) == 0 else { throw RoutingError(.fileAccess, "cannot read \(path)") }
        hash.add(length)
        return hash.value
    }
}

/// The 64-bit FNV-1a hash.
struct FNV1a {
    private(set) var value: UInt64 = 0xcbf2_9ce4_8422_2325

    mutating func add(_ bytes: some Sequence<UInt8>) {
        for b in bytes { value = (value ^ UInt64(b)) &* 0x100_0000_01b3 }
    }

    mutating func add(_ number: UInt64) {
        for shift in stride(from: 0, to: 64, by: 8) { add(CollectionOfOne(UInt8(truncatingIfNeeded: number >> shift))) }
    }
}
