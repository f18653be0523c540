/// A FIFO ring of at most `capacity` elements: pushing onto a full queue drops the oldest.
public struct BoundedQueue<Element>: Sendable where Element: Sendable {
    private var storage: [Element?]
    private var head = 0
    /// How many elements are queued.
    public private(set) var count = 0

    /// An empty queue holding at most `capacity` elements.
    public init(capacity: Int) {
        precondition(capacity > 0, "a bounded queue needs room for one element")
        storage = []
        storage.reserveCapacity(min(capacity, 1024))
        self.capacity = capacity
    }

    /// The most elements the queue holds.
    public let capacity: Int

    /// True when nothing is queued.
    public var isEmpty: Bool { count == 0 }

    /// Appends `element`; returns the element dropped to make room, if any.
    /// - Complexity: O(1) amortized.
    @discardableResult
    public mutating func push(_ element: Element) -> Element? {
        if storage.count < capacity {
            // Still growing: the ring has not wrapped yet, so head is 0 and the slots are in order.
            storage.append(element)
            count += 1
            return nil
        }
        if count < capacity {
            storage[(head + count) % capacity] = element
            count += 1
            return nil
        }
        let dropped = storage[head]
        storage[head] = element
        head = (head + 1) % capacity
        return dropped
    }

    /// Removes and returns the oldest element.
    public mutating func popFirst() -> Element? {
        guard count > 0 else { return nil }
        let element = storage[head]
        storage[head] = nil
        head = (head + 1) % storage.count
        count -= 1
        if count == 0 && storage.count < capacity {
            storage.removeAll(keepingCapacity: true)
            head = 0
        }
        return element
    }

    /// The oldest element, without removing it.
    public var first: Element? { count > 0 ? storage[head] : nil }

    /// The elements, oldest first.
    public var elements: [Element] {
        (0..<count).compactMap { storage[(head + $0) % storage.count] }
    }
}
