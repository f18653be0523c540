/// A binary min-heap of (cost, node) pairs packed into one `UInt64` each, for Dijkstra with lazy deletion.
struct MinHeap {
    private var items: [UInt64] = []

    var isEmpty: Bool { items.isEmpty }

    mutating func removeAll() { items.removeAll(keepingCapacity: true) }

    /// Adds `node` at `cost` (cost below 2^32 ms, about 49 days; node below 2^32).
    @inline(__always)
    mutating func push(cost: Int, node: Int) {
        precondition(cost >= 0 && cost < 1 << 32, "route cost out of range: \(cost) ms")
        var i = items.count
        let item = UInt64(cost) << 32 | UInt64(node)
        items.append(item)
        while i > 0 {
            let parent = (i - 1) / 2
            guard items[parent] > item else { break }
            items[i] = items[parent]
            i = parent
        }
        items[i] = item
    }

    /// Removes and returns the cheapest pair.
    @inline(__always)
    mutating func pop() -> (cost: Int, node: Int)? {
        guard let top = items.first else { return nil }
        let last = items.removeLast()
        if !items.isEmpty {
            var i = 0
            let count = items.count
            while true {
                var child = 2 * i + 1
                if child >= count { break }
                if child + 1 < count && items[child + 1] < items[child] { child += 1 }
                guard items[child] < last else { break }
                items[i] = items[child]
                i = child
            }
            items[i] = last
        }
        return (Int(top >> 32), Int(top & 0xFFFF_FFFF))
    }
}
