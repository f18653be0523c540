#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A file written in chunks of bytes (`fopen`, `fwrite`); `ArrayFileWriter` lays them out.
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

    /// Writes raw bytes (`fwrite`).
    func write(_ bytes: UnsafeRawBufferPointer) throws(RoutingError) {
        guard bytes.isEmpty || fwrite(bytes.baseAddress, 1, bytes.count, handle) == bytes.count else {
            throw RoutingError(.fileAccess, "cannot write \(path): \(String(cString: strerror(errno)))")
        }
    }

    /// Flushes and checks for a late write error (`fflush`).
    func flush() throws(RoutingError) {
        guard fflush(handle) == 0 else {
            throw RoutingError(.fileAccess, "cannot write \(path): \(String(cString: strerror(errno)))")
        }
    }
}

/// A file mapped read-only into memory (`mmap`, `MAP_SHARED`, `MAP_POPULATE`): its pages come from the page cache,
/// all mapped at once, and are shared by every process that maps the same file; unmapped (`munmap`) when the last
/// buffer viewing it is gone. `@unchecked Sendable`: the mapping is read-only and never changes after `init`.
final class MappedFile: @unchecked Sendable {
    /// The first byte.
    let base: UnsafeRawPointer
    /// The file's size in bytes.
    let count: Int

    /// Maps `path`.
    /// - Throws: `RoutingError.fileAccess` when it cannot be opened or mapped, `.corruptFile` when empty.
    init(path: String) throws(RoutingError) {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else {
            throw RoutingError(.fileAccess, "cannot open \(path): \(String(cString: strerror(errno)))")
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            throw RoutingError(.fileAccess, "cannot read \(path): \(String(cString: strerror(errno)))")
        }
        let size = Int(info.st_size)
        guard size > 0 else { throw RoutingError(.corruptFile, "\(path) is empty") }
        // Every page is read once at load (the checksum): populating the page tables in the kernel, in one call,
        // costs less than taking a fault per page.
        guard let address = mmap(nil, size, PROT_READ, MAP_SHARED | MAP_POPULATE, fd, 0), address != MAP_FAILED
        else {
            throw RoutingError(.fileAccess, "cannot map \(path): \(String(cString: strerror(errno)))")
        }
        base = UnsafeRawPointer(address)
        count = size
    }

    /// A private copy of `bytes` with the same interface (files given as bytes, in tests).
    init(copying bytes: [UInt8]) {
        let memory = UnsafeMutableRawPointer.allocate(byteCount: max(bytes.count, 1), alignment: 16)
        bytes.withUnsafeBytes {
            memory.copyMemory(from: $0.baseAddress ?? UnsafeRawPointer(memory), byteCount: $0.count)
        }
        base = UnsafeRawPointer(memory)
        count = bytes.count
        isMapped = false
    }

    private var isMapped = true

    deinit {
        if isMapped {
            munmap(UnsafeMutableRawPointer(mutating: base), count)
        } else {
            UnsafeMutableRawPointer(mutating: base).deallocate()
        }
    }

    /// Tells the kernel this process no longer needs the whole pages before `offset` (`madvise`,
    /// `MADV_DONTNEED`): they leave its resident set (the page cache keeps them); reading them again maps them again.
    func dropPages(before offset: Int) {
        guard isMapped else { return }
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        let length = min(offset, count) / page * page
        if length > 0 { madvise(UnsafeMutableRawPointer(mutating: base), length, MADV_DONTNEED) }
    }

    /// The bytes.
    var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: base, count: count) }
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
