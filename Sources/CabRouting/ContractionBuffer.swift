/// A fixed-size block of memory that reads and writes without bounds checks, for the query loops.
///
/// Immutable buffers are shared between threads (`@unchecked Sendable`: the contents are written only before the
/// buffer is published, by its creator); mutable scratch buffers live inside one non-Sendable query object.
final class ContractionBuffer<Element: BitwiseCopyable>: @unchecked Sendable {
    /// The first element.
    let base: UnsafeMutablePointer<Element>
    /// The element count.
    let count: Int
    /// False once `prefix(_:)` has handed the memory to another buffer.
    private var ownsMemory = true

    /// A buffer of `count` copies of `value`.
    init(repeating value: Element, count: Int) {
        self.count = count
        base = .allocate(capacity: Swift.max(count, 1))
        base.initialize(repeating: value, count: count)
    }

    /// A buffer holding a copy of `array`.
    init(_ array: [Element]) {
        count = array.count
        base = .allocate(capacity: Swift.max(count, 1))
        array.withUnsafeBufferPointer { source in
            if let start = source.baseAddress { base.initialize(from: start, count: count) }
        }
    }

    /// A buffer of `count` elements left uninitialized (bitwise-copyable values need no initialization); the
    /// pages of a large one become resident only where written.
    init(uninitializedCount count: Int) {
        self.count = count
        base = .allocate(capacity: Swift.max(count, 1))
    }

    private init(adopting base: UnsafeMutablePointer<Element>, count: Int) {
        self.base = base
        self.count = count
    }

    deinit { if ownsMemory { base.deallocate() } }

    /// A buffer of the first `count` elements of this one that takes over its memory (the tail stays reserved
    /// address space, never written); this buffer must not be used afterwards.
    func prefix(_ count: Int) -> ContractionBuffer {
        precondition(count <= self.count && ownsMemory, "prefix of a buffer that no longer owns its memory")
        ownsMemory = false
        return ContractionBuffer(adopting: base, count: count)
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
