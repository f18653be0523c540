#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Large arrays that queries read at random (labels, the hierarchy, the graph, the snapper's cells, a query's
/// scratch) kept on 2 MiB pages where the kernel offers them (Linux transparent huge pages).
///
/// At metro size each query's reads land somewhere random in a gigabyte of arrays. With 4 KiB pages nearly every
/// such read also misses the TLB, and the page walk is itself a chain of cache misses (two-dimensional inside a
/// virtual machine). With 2 MiB pages the TLB covers the whole index. Measured on the N=700 grid, the same build
/// with huge pages allowed and not (the system's THP setting switched between two runs): many-to-one 20 went from
/// 56 to 48 µs, 100 from 241 to 205 µs, geometry from 47 to 38 µs, one snap from 1.75 to 1.30 µs.
///
/// Linux's usual setting (`madvise`) gives huge pages only to memory a process asks for them on, before its pages
/// are first written (`MADV_HUGEPAGE`); `MADV_COLLAPSE` (Linux 6.1) turns memory already written into huge pages
/// on the spot. Both are advice: on a kernel without them, or with THP off, nothing changes but speed.
enum HugePages {
    /// The huge page size the kernel maps (`hpage_pmd_size`; 2 MiB on x86-64), 2 MiB where it does not say.
    static let size: Int = {
        #if os(Linux)
            if let file = fopen("/sys/kernel/mm/transparent_hugepage/hpage_pmd_size", "r") {
                defer { fclose(file) }
                var line = [CChar](repeating: 0, count: 32)
                if fgets(&line, Int32(line.count), file) != nil,
                    let value = Int(String(decoding: line.prefix { $0 > 32 }.map { UInt8($0) }, as: UTF8.self)),
                    value > 0, value & (value - 1) == 0
                {
                    return value
                }
            }
        #endif
        return 2 << 20
    }()
    /// Blocks below this many bytes are left on ordinary pages: a block must span at least one whole huge page
    /// wherever it starts, and small ones are not worth a page of their own.
    static var minimumBytes: Int { 2 * size }

    #if os(Linux)
        /// `MADV_COLLAPSE` (not in every libc's headers yet).
        private static let collapseAdvice: Int32 = 25
    #endif

    /// Whether the allocations of `allocate` use huge pages (`CAB_HUGE_PAGES=0` turns them off, for comparing the
    /// two in benchmarks; reading it once keeps every buffer of a process the same kind).
    static let enabled: Bool = {
        guard let value = getenv("CAB_HUGE_PAGES") else { return true }
        return String(cString: value) != "0"
    }()

    /// The whole huge pages inside `[start, start + byteCount)`, or nil when there is none.
    private static func interior(_ start: UnsafeRawPointer, _ byteCount: Int) -> (UnsafeMutableRawPointer, Int)? {
        let low = (Int(bitPattern: start) + size - 1) & ~(size - 1)
        let high = (Int(bitPattern: start) + byteCount) & ~(size - 1)
        guard high > low, let pointer = UnsafeMutableRawPointer(bitPattern: low) else { return nil }
        return (pointer, high - low)
    }

    /// Asks for huge pages under `[start, start + byteCount)` where they fit whole, for pages not yet written
    /// (`MADV_HUGEPAGE`); a no-op below `minimumBytes` or when turned off.
    static func advise(_ start: UnsafeRawPointer, byteCount: Int) {
        #if os(Linux)
            guard enabled, byteCount >= minimumBytes, let (pointer, length) = interior(start, byteCount) else { return }
            _ = madvise(pointer, length, MADV_HUGEPAGE)
        #endif
    }

    /// Moves the pages already written under `[start, start + byteCount)` onto huge pages (`MADV_COLLAPSE`),
    /// including the huge pages it only partly covers: a block from the allocator seldom starts on a huge page,
    /// and its neighbours there are other allocations of this process, which the move leaves as they are (only
    /// where they are kept changes). A copy at memory speed for ranges still on small pages, nothing for those
    /// already on huge ones. A no-op below `minimumBytes`, when turned off or where the kernel cannot (a partly
    /// covered page next to another kind of mapping stays as it is).
    static func collapse(_ start: UnsafeRawPointer, byteCount: Int) {
        #if os(Linux)
            guard enabled, byteCount >= minimumBytes else { return }
            let low = Int(bitPattern: start) & ~(size - 1)
            let high = (Int(bitPattern: start) + byteCount + size - 1) & ~(size - 1)
            guard let pointer = UnsafeMutableRawPointer(bitPattern: low) else { return }
            _ = madvise(pointer, high - low, MADV_HUGEPAGE)
            _ = madvise(pointer, high - low, collapseAdvice)
        #endif
    }

    /// Uninitialized memory for `count` elements: from `mmap`, aligned to a huge page and advised onto huge pages
    /// when it is at least `minimumBytes` (fresh pages, so the advice holds at their first write), else from the
    /// allocator. Free it with `deallocate(_:count:)` and the same count.
    static func allocate<Element>(_ type: Element.Type, count: Int) -> UnsafeMutablePointer<Element> {
        let bytes = Swift.max(count, 1) * MemoryLayout<Element>.stride
        #if os(Linux)
            if enabled && bytes >= minimumBytes {
                let reserved = bytes + size
                // No fallback to the allocator: `deallocate` tells the two apart by size alone.
                guard let mapped = mmap(nil, reserved, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0),
                    mapped != MAP_FAILED
                else { preconditionFailure("out of memory: cannot map \(reserved) bytes") }
                do {
                    // Keep the aligned part; hand the slack on either side back.
                    let start = (Int(bitPattern: mapped) + size - 1) & ~(size - 1)
                    let head = start - Int(bitPattern: mapped)
                    if head > 0 { munmap(mapped, head) }
                    let tail = reserved - head - roundedUp(bytes)
                    if tail > 0 { munmap(UnsafeMutableRawPointer(bitPattern: start + roundedUp(bytes)), tail) }
                    let pointer = UnsafeMutableRawPointer(bitPattern: start)!
                    _ = madvise(pointer, roundedUp(bytes), MADV_HUGEPAGE)
                    return pointer.bindMemory(to: Element.self, capacity: Swift.max(count, 1))
                }
            }
        #endif
        return .allocate(capacity: Swift.max(count, 1))
    }

    /// Frees what `allocate(_:count:)` returned for the same `count`.
    static func deallocate<Element>(_ pointer: UnsafeMutablePointer<Element>, count: Int) {
        let bytes = Swift.max(count, 1) * MemoryLayout<Element>.stride
        #if os(Linux)
            if enabled && bytes >= minimumBytes {
                munmap(UnsafeMutableRawPointer(pointer), roundedUp(bytes))
                return
            }
        #endif
        pointer.deallocate()
    }

    /// The ordinary page size.
    private static let pageSize = Int(sysconf(Int32(_SC_PAGESIZE)))

    /// `bytes` rounded up to whole ordinary pages.
    private static func roundedUp(_ bytes: Int) -> Int { (bytes + pageSize - 1) & ~(pageSize - 1) }
}

extension Array {
    /// An array of `count` elements, written by `initialize` (which must initialize all of them), in storage on huge
    /// pages when it is large enough to hold one (see `HugePages`).
    /// - Complexity: `initialize`, plus the kernel's copy of any page the allocator had written before.
    init(onHugePagesCount count: Int, _ initialize: (UnsafeMutablePointer<Element>) -> Void) {
        let bytes = count * MemoryLayout<Element>.stride
        self.init(unsafeUninitializedCapacity: count) { buffer, initialized in
            guard let start = buffer.baseAddress else { return }
            HugePages.advise(start, byteCount: bytes)
            initialize(start)
            // The allocator may have handed out pages it had written before, which the advice does not change.
            HugePages.collapse(start, byteCount: bytes)
            initialized = count
        }
    }

    /// Reserves room for at least `capacity` elements and asks for huge pages under the array's whole storage, for
    /// the pages not yet written (see `HugePages.advise`): for working arrays that grow by appending into reserved
    /// room and are read at random, such as the contraction's arc pools.
    /// - Complexity: as `reserveCapacity(_:)`.
    mutating func reserveCapacityOnHugePages(_ capacity: Int) {
        reserveCapacity(capacity)
        let bytes = self.capacity * MemoryLayout<Element>.stride
        withUnsafeMutableBufferPointer { buffer in
            if let start = buffer.baseAddress, bytes > 0 { HugePages.advise(start, byteCount: bytes) }
        }
    }

    /// This array's elements in new storage on huge pages (`init(onHugePagesCount:_:)`) when it is large enough to
    /// hold one; else the array itself. For a graph's arrays, which are built by appending.
    /// - Complexity: O(count), one copy.
    func onHugePages() -> [Element] {
        guard HugePages.enabled, count * MemoryLayout<Element>.stride >= HugePages.minimumBytes else { return self }
        return withUnsafeBufferPointer { source in
            [Element](onHugePagesCount: source.count) { $0.initialize(from: source.baseAddress!, count: source.count) }
        }
    }
}
