/// The shrinking graph's arc lists, all in one pool: each node owns a slot (start, count, capacity) that moves
/// to the end of the pool, twice as large, when it fills up; the pool is compacted when more than half of it is
/// abandoned slots. One allocation instead of an array per node: no reference counting in the witness search and
/// a fraction of the memory.
struct ContractionAdjacency {
    private(set) var pool: [ContractionBuilder.DynamicArc] = []
    private var start: [Int32]
    private var count: [Int32]
    private var capacity: [Int32]
    private var abandoned = 0

    init(nodeCount: Int) {
        start = Array(repeating: 0, count: nodeCount)
        count = Array(repeating: 0, count: nodeCount)
        capacity = Array(repeating: 0, count: nodeCount)
    }

    /// Pool indices of `node`'s arcs.
    @inline(__always) func range(_ node: Int32) -> Range<Int> {
        let s = Int(start[Int(node)])
        return s..<(s + Int(count[Int(node)]))
    }

    /// A copy of `node`'s arcs.
    func arcs(_ node: Int32) -> ArraySlice<ContractionBuilder.DynamicArc> { pool[range(node)] }

    /// The pool index of `node`'s arc to `other`, if any.
    func index(of other: Int32, at node: Int32) -> Int? {
        for i in range(node) where pool[i].other == other { return i }
        return nil
    }

    /// Replaces the arc at pool index `i`.
    mutating func set(_ i: Int, _ arc: ContractionBuilder.DynamicArc) { pool[i] = arc }

    mutating func append(_ arc: ContractionBuilder.DynamicArc, to node: Int32) {
        let n = Int(node)
        if count[n] == capacity[n] {
            let newCapacity = max(4, 2 * Int(capacity[n]))
            let old = Int(start[n])..<(Int(start[n]) + Int(count[n]))
            abandoned += Int(capacity[n])
            start[n] = Int32(pool.count)
            // Copied out first: appending a slice of the pool to the pool would copy the whole pool.
            let moved = Array(pool[old])
            pool.append(contentsOf: moved)
            pool.append(contentsOf: repeatElement(arc, count: newCapacity - old.count))
            capacity[n] = Int32(newCapacity)
        }
        pool[Int(start[n]) + Int(count[n])] = arc
        count[n] += 1
    }

    /// Removes every arc of `node` to `other`.
    mutating func remove(_ other: Int32, at node: Int32) {
        let n = Int(node)
        var i = Int(start[n])
        while i < Int(start[n]) + Int(count[n]) {
            if pool[i].other == other {
                count[n] -= 1
                pool[i] = pool[Int(start[n]) + Int(count[n])]
            } else {
                i += 1
            }
        }
    }

    /// Drops all of `node`'s arcs and its slot.
    mutating func removeAll(at node: Int32) {
        let n = Int(node)
        abandoned += Int(capacity[n])
        count[n] = 0
        capacity[n] = 0
        if abandoned > 1 << 16 && abandoned > pool.count / 2 { compact() }
    }

    /// Copies every live slot into a fresh pool.
    private mutating func compact() {
        var fresh: [ContractionBuilder.DynamicArc] = []
        fresh.reserveCapacity(pool.count - abandoned)
        for n in start.indices {
            let s = Int(start[n])
            start[n] = Int32(fresh.count)
            fresh.append(contentsOf: pool[s..<(s + Int(capacity[n]))])
        }
        pool = fresh
        abandoned = 0
    }
}
