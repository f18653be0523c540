/// An indexed 4-ary min-heap of nodes keyed by `UInt32`, with decrease-key, on preallocated unsafe buffers.
///
/// Each node's position is remembered, so a node is pushed once and its key lowered in place. `clear()` is O(1):
/// positions of nodes left over from an earlier search are never read, because callers track membership with
/// their own timestamps and call `contains` only for nodes stamped in the current search.
final class ContractionHeap {
    private let keys: ContractionBuffer<UInt32>
    private let nodes: ContractionBuffer<Int32>
    private let positions: ContractionBuffer<Int32>
    /// How many nodes are queued.
    private(set) var count = 0

    /// A heap for nodes `0 ..< capacity`.
    init(capacity: Int) {
        keys = ContractionBuffer(repeating: 0, count: capacity)
        nodes = ContractionBuffer(repeating: 0, count: capacity)
        positions = ContractionBuffer(repeating: -1, count: capacity)
    }

    /// True when nothing is queued.
    @inline(__always) var isEmpty: Bool { count == 0 }
    /// The smallest key (undefined when empty).
    @inline(__always) var minKey: UInt32 { keys[0] }

    /// Forgets every queued node.
    @inline(__always) func clear() { count = 0 }

    /// True when `node` (stamped in the current search) is still queued, i.e. not yet popped.
    @inline(__always) func contains(_ node: Int32) -> Bool { positions[Int(node)] >= 0 }

    /// Queues `node`, which must not be queued.
    @inline(__always) func push(_ node: Int32, key: UInt32) {
        siftUp(from: count, node: node, key: key)
        count += 1
    }

    /// Lowers the key of a queued `node`.
    @inline(__always) func decrease(_ node: Int32, to key: UInt32) {
        siftUp(from: Int(positions[Int(node)]), node: node, key: key)
    }

    /// Moves a queued `node` to `key`, up or down.
    func update(_ node: Int32, to key: UInt32) {
        let position = Int(positions[Int(node)])
        if key <= keys[position] {
            siftUp(from: position, node: node, key: key)
        } else {
            siftDown(from: position, node: node, key: key)
        }
    }

    /// Removes and returns the node with the smallest key.
    @inline(__always) func pop() -> (node: Int32, key: UInt32) {
        let top = (nodes[0], keys[0])
        positions[Int(top.0)] = -1
        count -= 1
        if count > 0 { siftDown(from: 0, node: nodes[count], key: keys[count]) }
        return top
    }

    @inline(__always) private func siftUp(from start: Int, node: Int32, key: UInt32) {
        var hole = start
        while hole > 0 {
            let parent = (hole - 1) >> 2
            let parentKey = keys[parent]
            if parentKey <= key { break }
            keys[hole] = parentKey
            nodes[hole] = nodes[parent]
            positions[Int(nodes[hole])] = Int32(hole)
            hole = parent
        }
        keys[hole] = key
        nodes[hole] = node
        positions[Int(node)] = Int32(hole)
    }

    @inline(__always) private func siftDown(from start: Int, node: Int32, key: UInt32) {
        var hole = start
        while true {
            let first = 4 * hole + 1
            if first >= count { break }
            var best = first
            var bestKey = keys[first]
            let last = Swift.min(first + 4, count)
            var child = first + 1
            while child < last {
                let k = keys[child]
                if k < bestKey {
                    best = child
                    bestKey = k
                }
                child += 1
            }
            if bestKey >= key { break }
            keys[hole] = bestKey
            nodes[hole] = nodes[best]
            positions[Int(nodes[hole])] = Int32(hole)
            hole = best
        }
        keys[hole] = key
        nodes[hole] = node
        positions[Int(node)] = Int32(hole)
    }
}
