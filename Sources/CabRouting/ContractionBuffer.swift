/// A fixed-size block of memory that reads and writes without bounds checks, for the query loops; large ones on
/// huge pages (`HugePages`).
///
/// Immutable buffers are shared between threads (`@unchecked Sendable`: the contents are written only before the
/// buffer is published, by its creator); mutable scratch buffers live inside one non-Sendable query object.
package final class ContractionBuffer<Element: BitwiseCopyable>: @unchecked Sendable {
    /// The first element.
    let base: UnsafeMutablePointer<Element>
    /// The element count.
    let count: Int
    /// False once `prefix(_:)` has handed the memory to another buffer, and for views of a mapped file.
    private var ownsMemory = true
    /// What keeps viewed memory alive (a `MappedFile`), nil for memory this buffer allocated.
    private let owner: AnyObject?
    /// The element count `HugePages.allocate` was asked for (a `prefix(_:)` keeps the whole block).
    private let allocatedCount: Int

    /// A buffer of `count` copies of `value`.
    init(repeating value: Element, count: Int) {
        self.count = count
        owner = nil
        allocatedCount = count
        base = HugePages.allocate(Element.self, count: count)
        base.initialize(repeating: value, count: count)
    }

    /// A buffer holding a copy of `array`.
    package init(_ array: [Element]) {
        count = array.count
        owner = nil
        allocatedCount = count
        base = HugePages.allocate(Element.self, count: count)
        array.withUnsafeBufferPointer { source in
            if let start = source.baseAddress { base.initialize(from: start, count: count) }
        }
    }

    /// A buffer of `count` elements left uninitialized (bitwise-copyable values need no initialization); the
    /// pages of a large one become resident only where written.
    init(uninitializedCount count: Int) {
        self.count = count
        owner = nil
        allocatedCount = count
        base = HugePages.allocate(Element.self, count: count)
    }

    private init(adopting base: UnsafeMutablePointer<Element>, count: Int, allocatedCount: Int) {
        self.base = base
        self.count = count
        self.allocatedCount = allocatedCount
        owner = nil
    }

    /// A view of `count` elements at `start` inside memory that `owner` keeps alive (a read-only mapped file:
    /// such a buffer must never be written, and index buffers never are after loading).
    init(viewing start: UnsafeRawPointer, count: Int, owner: AnyObject) {
        base = UnsafeMutablePointer(mutating: start.assumingMemoryBound(to: Element.self))
        self.count = count
        self.owner = owner
        allocatedCount = 0
        ownsMemory = false
    }

    deinit { if ownsMemory { HugePages.deallocate(base, count: allocatedCount) } }

    /// A buffer of the first `count` elements of this one that takes over its memory (the tail stays reserved
    /// address space, never written); this buffer must not be used afterwards.
    func prefix(_ count: Int) -> ContractionBuffer {
        precondition(count <= self.count && ownsMemory, "prefix of a buffer that no longer owns its memory")
        ownsMemory = false
        return ContractionBuffer(adopting: base, count: count, allocatedCount: allocatedCount)
    }

    /// The element at `index` (unchecked).
    @inline(__always) subscript(index: Int) -> Element {
        get { base[index] }
        set { base[index] = newValue }
    }

    /// The contents as an array.
    var array: [Element] { Array(UnsafeBufferPointer(start: base, count: count)) }

    /// Sets every element to `value`.
    func fill(_ value: Element) { base.update(repeating: value, count: count) }
}
