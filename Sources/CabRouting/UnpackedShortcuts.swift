/// Every short shortcut of a `ContractionHierarchy` unpacked once into one flat array, so that unpacking a route
/// copies a few contiguous runs of edge ids instead of walking each shortcut's halves down to the original arcs
/// (two random reads per edge: on a metro-size map those misses were most of the time a route with geometry took).
///
/// Shortcuts of at most `maximumEdges` edges keep a list; longer ones (the top of the hierarchy, few of them) are
/// still split into their halves, down to shortcuts that have a list. Each list is stored as its edge count
/// followed by the edge ids in path order.
struct UnpackedShortcuts: Sendable {
    /// The longest shortcut, in original edges, that keeps a list by default. On the N=700 grid 64 takes 33 MB
    /// (16: 31 MB, 240: 36 MB) and routes with geometry were fastest with it.
    static let defaultMaximumEdges = 64

    /// Per arc: the offset of its list in `lists`, or -1 (an original arc, or a longer shortcut).
    let start: ContractionBuffer<Int32>
    /// The lists: a count, then that many edge ids, per listed shortcut.
    let lists: ContractionBuffer<Int32>

    /// Bytes the lists and their offsets take.
    var byteCount: Int { 4 * (start.count + lists.count) }

    /// Lists read back from a file (`FastRouterIndex.load`).
    init(start: ContractionBuffer<Int32>, lists: ContractionBuffer<Int32>) {
        self.start = start
        self.lists = lists
    }

    /// No lists: every shortcut is split into its halves.
    init(arcCount: Int) {
        start = ContractionBuffer(repeating: -1, count: arcCount)
        lists = ContractionBuffer([])
    }

    /// Unpacks the short shortcuts of the arc table (`arcFirst` is a shortcut's first half or `~edge`).
    /// - Complexity: O(arcs + listed edges); halves come before the shortcuts made of them, so one pass in arc order
    ///   copies each list from its halves' lists.
    init(
        arcFirst: ContractionBuffer<Int32>, arcSecond: ContractionBuffer<Int32>,
        maximumEdges: Int = Self.defaultMaximumEdges
    ) {
        precondition((0...254).contains(maximumEdges), "lengths are counted in a byte")
        let arcCount = arcFirst.count
        let start = ContractionBuffer<Int32>(repeating: -1, count: arcCount)
        // Unpacked length per arc, capped at maximumEdges + 1 ("too long").
        var length = [UInt8](repeating: 0, count: arcCount)
        var lists: [Int32] = []
        let cap = maximumEdges + 1
        for a in 0..<arcCount {
            let first = arcFirst[a]
            if first < 0 {
                length[a] = 1
                continue
            }
            let second = Int(arcSecond[a])
            let total = min(Int(length[Int(first)]) + Int(length[second]), cap)
            length[a] = UInt8(total)
            guard total <= maximumEdges else { continue }
            precondition(lists.count + total + 1 < Int(Int32.max), "unpacked shortcut lists too large")
            start[a] = Int32(lists.count)
            lists.append(Int32(total))
            for half in [Int(first), second] {
                let s = Int(start[half])
                if s >= 0 {
                    let count = Int(lists[s])
                    for k in (s + 1)..<(s + 1 + count) { lists.append(lists[k]) }
                } else {
                    lists.append(~arcFirst[half])
                }
            }
        }
        self.start = start
        self.lists = ContractionBuffer(lists)
    }
}
