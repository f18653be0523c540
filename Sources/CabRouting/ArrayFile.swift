/// Writes a data file made of scalars and arrays (the routing index, the road graph): raw little-endian values,
/// each array as its element count (UInt64) then its elements, padded with zeros to a multiple of 8 bytes so that
/// every array starts 8-byte aligned and can be viewed in place once the file is mapped. The last 8 bytes are a
/// `FileChecksum` of everything before them.
///
/// Writes straight to a file in chunks (`BinaryFile`), or collects the bytes in memory when given no file.
struct ArrayFileWriter {
    /// Bytes not yet written to the file (all of them, without a file).
    private(set) var bytes: [UInt8] = []
    private let file: BinaryFile?
    private var checksum = FileChecksum()
    /// Bytes handed over so far, for alignment.
    private var offset = 0

    /// A writer into `file`, or into `bytes` when nil.
    init(file: BinaryFile? = nil) {
        self.file = file
    }

    /// Appends raw bytes.
    mutating func put(raw: UnsafeRawBufferPointer) throws(RoutingError) {
        checksum.add(raw)
        offset += raw.count
        if let file, raw.count >= 1 << 16 {
            try drain()
            try file.write(raw)
        } else {
            bytes.append(contentsOf: raw)
            if file != nil && bytes.count >= 1 << 20 { try drain() }
        }
    }

    mutating func put(raw magic: [UInt8]) throws(RoutingError) {
        // `Array.withUnsafeBytes` rethrows untyped errors: the typed one travels in a `Result`.
        try magic.withUnsafeBytes { raw in Result { () throws(RoutingError) in try put(raw: raw) } }.get()
    }

    mutating func put<T: FixedWidthInteger>(_ value: T) throws(RoutingError) {
        var little = value.littleEndian
        try withUnsafeBytes(of: &little) { (raw) throws(RoutingError) in try put(raw: raw) }
    }

    mutating func put(_ value: Double) throws(RoutingError) { try put(value.bitPattern) }

    /// An array: its count, its elements, zeros up to the next multiple of 8 bytes.
    mutating func put<T: BitwiseCopyable>(_ buffer: ContractionBuffer<T>) throws(RoutingError) {
        try putArray(
            UnsafeRawBufferPointer(start: buffer.base, count: buffer.count * MemoryLayout<T>.stride),
            count: buffer.count)
    }

    mutating func put<T: BitwiseCopyable>(_ array: [T]) throws(RoutingError) {
        try array.withUnsafeBytes { raw in
            Result { () throws(RoutingError) in try putArray(raw, count: array.count) }
        }.get()
    }

    private mutating func putArray(_ raw: UnsafeRawBufferPointer, count: Int) throws(RoutingError) {
        try put(UInt64(count))
        try put(raw: raw)
        let padding = (8 - offset % 8) % 8
        if padding > 0 { try put(raw: [UInt8](repeating: 0, count: padding)) }
    }

    /// Appends the checksum and writes what is left (`fflush`).
    mutating func finish() throws(RoutingError) {
        var sum = checksum.value.littleEndian
        withUnsafeBytes(of: &sum) { bytes.append(contentsOf: $0) }
        try drain()
        try file?.flush()
    }

    private mutating func drain() throws(RoutingError) {
        guard let file, !bytes.isEmpty else { return }
        try bytes.withUnsafeBytes { raw in Result { () throws(RoutingError) in try file.write(raw) } }.get()
        bytes.removeAll(keepingCapacity: true)
    }
}

/// Reads what `ArrayFileWriter` wrote from a mapped file, throwing on truncation; arrays come out as buffers viewing
/// the mapping (nothing copied) or as copies in Swift arrays.
struct ArrayFileReader {
    let file: MappedFile
    var offset = 0
    /// The error thrown when the file ends early or a count is impossible.
    let truncated: RoutingError

    /// A reader of `file` from its start.
    init(file: MappedFile, truncated: RoutingError) {
        self.file = file
        self.truncated = truncated
    }

    /// The bytes the data ends at: the file without its checksum.
    var dataEnd: Int { max(file.count - 8, 0) }

    /// True when the file's last 8 bytes are the checksum of the rest.
    /// - Complexity: O(file size), one sequential pass at memory speed.
    func checksumMatches() -> Bool {
        guard file.count >= 8 else { return false }
        let stored = UInt64(littleEndian: file.base.loadUnaligned(fromByteOffset: dataEnd, as: UInt64.self))
        var sum = FileChecksum()
        sum.add(UnsafeRawBufferPointer(start: file.base, count: dataEnd))
        return sum.value == stored
    }

    /// The next `count` raw bytes.
    mutating func raw(count: Int) throws(RoutingError) -> [UInt8] {
        guard count >= 0, offset + count <= dataEnd else { throw truncated }
        defer { offset += count }
        return Array(UnsafeRawBufferPointer(start: file.base + offset, count: count))
    }

    mutating func scalar<T: FixedWidthInteger>() throws(RoutingError) -> T {
        let size = MemoryLayout<T>.size
        guard offset + size <= dataEnd else { throw truncated }
        let value = file.base.loadUnaligned(fromByteOffset: offset, as: T.self)
        offset += size
        return T(littleEndian: value)
    }

    mutating func double() throws(RoutingError) -> Double { Double(bitPattern: try scalar()) }

    /// Where the next array's elements are and how many there are (checked against `expected`); moves past it.
    private mutating func nextArray<T>(of type: T.Type, count expected: Int?) throws(RoutingError) -> (
        start: UnsafeRawPointer, count: Int
    ) {
        let count64: UInt64 = try scalar()
        guard count64 <= UInt64(file.count) else { throw truncated }
        let count = Int(count64)
        if let expected, expected != count { throw truncated }
        let size = count * MemoryLayout<T>.stride
        guard offset + size <= dataEnd else { throw truncated }
        let start = file.base + offset
        offset += size
        offset = min(offset + (8 - offset % 8) % 8, dataEnd)  // the writer's padding, to a multiple of 8
        return (start, count)
    }

    /// The next array as a view into the file when aligned for `T` (always, for files this code wrote), else a copy.
    mutating func buffer<T: BitwiseCopyable>(count expected: Int? = nil) throws(RoutingError) -> ContractionBuffer<T> {
        let (start, count) = try nextArray(of: T.self, count: expected)
        if Int(bitPattern: start) % MemoryLayout<T>.alignment == 0 {
            return ContractionBuffer(viewing: start, count: count, owner: file)
        }
        let copy = ContractionBuffer<T>(uninitializedCount: count)
        UnsafeMutableRawPointer(copy.base).copyMemory(from: start, byteCount: count * MemoryLayout<T>.stride)
        return copy
    }

    /// The next array copied into a Swift array (one `memcpy`), on huge pages when large (`HugePages`).
    mutating func array<T: BitwiseCopyable>(count expected: Int? = nil) throws(RoutingError) -> [T] {
        let (start, count) = try nextArray(of: T.self, count: expected)
        return [T](onHugePagesCount: count) {
            UnsafeMutableRawPointer($0).copyMemory(from: start, byteCount: count * MemoryLayout<T>.stride)
        }
    }
}

/// A checksum of a data file, fast enough to run over every byte at start-up in place of checking every index in
/// it: Fletcher's sums over 64-bit words in four lanes of 32-byte blocks (the sum of the words, and the sum of
/// those sums, so that a changed word changes the first and a moved one the second), then the tail and the length
/// folded in. Additions only: it runs at memory speed without vector multiplies.
struct FileChecksum {
    private var sum = SIMD4<UInt64>(
        0x9E37_79B9_7F4A_7C15, 0xC2B2_AE3D_27D4_EB4F, 0x1656_67B1_9E37_79F9, 0x85EB_CA77_C2B2_AE63)
    private var sumOfSums = SIMD4<UInt64>(repeating: 0)
    private var pending: [UInt8] = []
    private var length: UInt64 = 0

    /// Adds `bytes` (any split of the same bytes gives the same value).
    mutating func add(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        length &+= UInt64(bytes.count)
        var at = 0
        if !pending.isEmpty {
            let take = min(32 - pending.count, bytes.count)
            pending.append(contentsOf: UnsafeRawBufferPointer(start: base, count: take))
            at = take
            guard pending.count == 32 else { return }
            let block = pending.withUnsafeBytes { $0.loadUnaligned(as: SIMD4<UInt64>.self) }
            mix(block)
            pending.removeAll(keepingCapacity: true)
        }
        while bytes.count - at >= 32 {
            mix(base.loadUnaligned(fromByteOffset: at, as: SIMD4<UInt64>.self))
            at += 32
        }
        if at < bytes.count {
            pending.append(contentsOf: UnsafeRawBufferPointer(start: base + at, count: bytes.count - at))
        }
    }

    @inline(__always)
    private mutating func mix(_ block: SIMD4<UInt64>) {
        sum &+= block
        sumOfSums &+= sum
    }

    /// The checksum of everything added.
    var value: UInt64 {
        var copy = self
        var tail = [UInt8](repeating: 0, count: 32)
        for (i, b) in pending.enumerated() { tail[i] = b }
        copy.mix(tail.withUnsafeBytes { $0.loadUnaligned(as: SIMD4<UInt64>.self) })
        var hash = FNV1a()
        hash.add(length)
        for i in 0..<4 {
            hash.add(copy.sum[i])
            hash.add(copy.sumOfSums[i])
        }
        return hash.value
    }
}
