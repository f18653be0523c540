/// The shrinking graph's arc lists, all in one pool: each node owns a slot (start, count, capacity) that moves
/// to the end of the pool, twice as large, when it fills up; the pool is compacted (into a spare pool, see
/// `compact()`) when more than a quarter of it is abandoned slots. One allocation instead of an array per node: no reference counting in the witness search and
/// a fraction of the memory.
struct ContractionAdjacency {
    private(set) var pool: [ContractionBuilder.DynamicArc] = []
    /// The pool before the last compaction, kept to compact into next time (see `compact()`).
    private var spare: [ContractionBuilder.DynamicArc] = []
    /// Per node, where its arcs are: one struct, so that a witness search reaching a node misses once, not thrice.
    private var slots: [Slot]
    private var abandoned = 0
    /// Compactions so far (for tests).
    private(set) var compactions = 0

    struct Slot {
        var start: Int32 = 0
        var count: Int32 = 0
        var capacity: Int32 = 0
    }

    init(nodeCount: Int) {
        slots = [Slot](onHugePagesCount: nodeCount) { $0.initialize(repeating: Slot(), count: nodeCount) }
    }

    /// A read-only view of the arcs for a search on another thread: valid only inside `withView`, during which
    /// nothing may add or remove an arc.
    struct View {
        let pool: UnsafePointer<ContractionBuilder.DynamicArc>
        let slots: UnsafePointer<Slot>

        /// Pool indices of `node`'s arcs.
        @inline(__always) func range(_ node: Int32) -> Range<Int> {
            let slot = slots[Int(node)]
            return Int(slot.start)..<(Int(slot.start) + Int(slot.count))
        }

        /// `node`'s arcs.
        @inline(__always) func arcs(_ node: Int32) -> UnsafeBufferPointer<ContractionBuilder.DynamicArc> {
            let slot = slots[Int(node)]
            return UnsafeBufferPointer(start: pool + Int(slot.start), count: Int(slot.count))
        }
    }

    /// Runs `body` with a view of the arcs as they are now.
    func withView<R>(_ body: (View) -> R) -> R {
        pool.withUnsafeBufferPointer { pool in
            slots.withUnsafeBufferPointer { slots in
                // An empty array may have no base address; nothing is read through it then (no arcs, no nodes).
                body(
                    View(
                        pool: pool.baseAddress ?? UnsafePointer(bitPattern: 64)!,
                        slots: slots.baseAddress ?? UnsafePointer(bitPattern: 64)!))
            }
        }
    }

    /// Reserves room for `arcs` pool slots (address space; pages become resident as they are written), on huge
    /// pages: the witness searches read the pool at random.
    mutating func reserve(arcs: Int) { pool.reserveCapacityOnHugePages(arcs) }

    /// Pool indices of `node`'s arcs.
    @inline(__always) func range(_ node: Int32) -> Range<Int> {
        let slot = slots[Int(node)]
        return Int(slot.start)..<(Int(slot.start) + Int(slot.count))
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
        var slot = slots[n]
        if slot.count == slot.capacity {
            let newCapacity = max(4, 2 * Int(slot.capacity))
            let old = Int(slot.start)..<(Int(slot.start) + Int(slot.count))
            abandoned += Int(slot.capacity)
            slot.start = Int32(pool.count)
            // Copied out first: appending a slice of the pool to the pool would copy the whole pool.
            let moved = Array(pool[old])
            pool.append(contentsOf: moved)
            pool.append(contentsOf: repeatElement(arc, count: newCapacity - old.count))
            slot.capacity = Int32(newCapacity)
        }
        pool[Int(slot.start) + Int(slot.count)] = arc
        slot.count += 1
        slots[n] = slot
    }

    /// Removes every arc of `node` to `other`.
    mutating func remove(_ other: Int32, at node: Int32) {
        let n = Int(node)
        let start = Int(slots[n].start)
        var count = Int(slots[n].count)
        var i = start
        while i < start + count {
            if pool[i].other == other {
                count -= 1
                pool[i] = pool[start + count]
            } else {
                i += 1
            }
        }
        slots[n].count = Int32(count)
    }

    /// Drops all of `node`'s arcs and its slot.
    mutating func removeAll(at node: Int32) {
        let n = Int(node)
        abandoned += Int(slots[n].capacity)
        slots[n].count = 0
        slots[n].capacity = 0
        if abandoned > 1 << 16 && abandoned > pool.count / 4 { compact() }
    }

    /// Copies every live slot into the spare pool, which then becomes the pool (and the old pool the spare).
    ///
    /// The two pools take turns instead of a fresh one per compaction: a fresh pool's pages are zeroed by the kernel
    /// as they are first written (and, in a virtual machine that hands freed memory back to its host, fetched from
    /// the host again), where the spare's were written before.
    private mutating func compact() {
        var fresh = spare
        spare = []
        fresh.removeAll(keepingCapacity: true)
        // The spare is kept unless the pool has outgrown it by more than an eighth: the allocator rounds capacities
        // up, so a pool reserved at the spare's capacity may come out a little larger, and asking the spare for that
        // much would move it to new memory at every compaction. The live arcs (at most three quarters of the pool,
        // see `removeAll(at:)`) fit either way.
        if fresh.capacity < pool.capacity - pool.capacity / 8 { fresh.reserveCapacityOnHugePages(pool.capacity) }
        for n in slots.indices {
            let s = Int(slots[n].start)
            slots[n].start = Int32(fresh.count)
            fresh.append(contentsOf: pool[s..<(s + Int(slots[n].capacity))])
        }
        spare = pool
        pool = fresh
        abandoned = 0
        compactions += 1
    }
}
