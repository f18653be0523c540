/// A fixed-size block of memory that reads and writes without bounds checks, for the query loops.
///
/// Immutable buffers are shared between threads (`@unchecked Sendable`: the contents are written only before the
/// buffer is published, by its creator); mutable scratch buffers live inside one non-Sendable query object.
final class ContractionBuffer<Element: BitwiseCopyable>: @unchecked Sendable {
    /// The first element.
    let base: UnsafeMutablePointer<Element>
    /// The element count.
    let count: Int

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

    deinit { base.deallocate() }

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
