import CabGeo

@testable import CabRouting

/// A small deterministic generator (SplitMix64) so that failures reproduce from the seed in the test name.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9e37_79b9_7f4a_7c15
        var z = state
        z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
        z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
        return z ^ (z >> 31)
    }
}

/// Random road-like graphs with the awkward cases a real map has, and plain Dijkstra as the oracle.
enum ContractionTestGraphs {
    /// Nodes scattered on a plane in `parts` unconnected clusters, joined to near neighbours by two-way roads,
    /// one-ways, parallel edges, zero-duration edges, and some turn restrictions modelled as split nodes
    /// (a copy of a junction that only some arriving edges reach and that only some departing edges leave).
    static func random(nodes: Int, parts: Int = 3, seed: UInt64) -> ContractionGraph {
        var rng = SeededGenerator(seed: seed)
        var xs: [Double] = []
        var ys: [Double] = []
        var part: [Int] = []
        for i in 0..<nodes {
            let p = i % parts
            part.append(p)
            xs.append(Double(p) * 10_000 + Double.random(in: 0..<1000, using: &rng))
            ys.append(Double.random(in: 0..<1000, using: &rng))
        }
        var edges: [ContractionGraph.Edge] = []
        func add(_ a: Int, _ b: Int, oneWay: Bool) {
            let dx = xs[a] - xs[b]
            let dy = ys[a] - ys[b]
            let meters = (dx * dx + dy * dy).squareRoot()
            let zero = Int.random(in: 0..<25, using: &rng) == 0
            let ms = zero ? 0 : UInt32(meters * Double.random(in: 40...120, using: &rng))
            edges.append(.init(from: a, to: b, durationMilliseconds: ms, lengthMeters: Float(meters)))
            if !oneWay {
                edges.append(.init(from: b, to: a, durationMilliseconds: ms, lengthMeters: Float(meters)))
            }
        }
        for a in 0..<nodes {
            // Join to 2-3 of the nearest nodes of the same part (brute force: test graphs are small).
            var near: [(Double, Int)] = []
            for b in 0..<nodes where b != a && part[b] == part[a] {
                let dx = xs[a] - xs[b]
                let dy = ys[a] - ys[b]
                near.append((dx * dx + dy * dy, b))
            }
            near.sort { $0.0 < $1.0 }
            for (_, b) in near.prefix(Int.random(in: 2...3, using: &rng)) {
                add(a, b, oneWay: Int.random(in: 0..<5, using: &rng) == 0)
                if Int.random(in: 0..<15, using: &rng) == 0 { add(a, b, oneWay: true) }  // parallel edge
            }
        }
        var count = nodes
        // Split-node turn restrictions: node v gets a twin; some edges into v now enter the twin, which can only
        // continue along some of v's departing edges.
        for _ in 0..<(nodes / 20) {
            let v = Int.random(in: 0..<nodes, using: &rng)
            let twin = count
            count += 1
            let departing = edges.filter { Int($0.from) == v }
            for i in edges.indices where Int(edges[i].to) == v && Bool.random(using: &rng) {
                edges[i].to = Int32(twin)
            }
            for edge in departing where Bool.random(using: &rng) {
                edges.append(
                    .init(
                        from: twin, to: Int(edge.to), durationMilliseconds: edge.durationMilliseconds, lengthMeters: 1))
            }
        }
        // A self-loop and an isolated node.
        edges.append(.init(from: 0, to: 0, durationMilliseconds: 5, lengthMeters: 1))
        count += 1
        return ContractionGraph(nodeCount: count, edges: edges)
    }

    /// Random seeds: a node with zero cost, or a point inside an edge with partial costs at both ends.
    static func randomEndpoints(in graph: ContractionGraph, source: Bool, using rng: inout SeededGenerator)
        -> [ContractionSeed]
    {
        if Bool.random(using: &rng) || graph.edges.isEmpty {
            return [ContractionSeed(node: Int.random(in: 0..<graph.nodeCount, using: &rng))]
        }
        let edge = graph.edges[Int.random(in: 0..<graph.edges.count, using: &rng)]
        let t = Double.random(in: 0...1, using: &rng)
        let before = UInt32(Double(edge.durationMilliseconds) * t)
        let after = edge.durationMilliseconds - before
        let lenBefore = edge.lengthMeters * Float(t)
        if source {
            return [
                ContractionSeed(
                    node: Int(edge.to), durationMilliseconds: after, lengthMeters: edge.lengthMeters - lenBefore),
                ContractionSeed(node: Int(edge.from), durationMilliseconds: before, lengthMeters: lenBefore),
            ]
        }
        return [
            ContractionSeed(node: Int(edge.from), durationMilliseconds: before, lengthMeters: lenBefore),
            ContractionSeed(
                node: Int(edge.to), durationMilliseconds: after, lengthMeters: edge.lengthMeters - lenBefore),
        ]
    }

    /// Plain Dijkstra from `sources` to every node (`UInt32.max` when unreachable); the oracle.
    static func dijkstra(_ graph: ContractionGraph, from sources: [ContractionSeed]) -> [UInt32] {
        var first = [Int](repeating: 0, count: graph.nodeCount + 1)
        for edge in graph.edges { first[Int(edge.from) + 1] += 1 }
        for i in 0..<graph.nodeCount { first[i + 1] += first[i] }
        var fill = first
        var order = [Int](repeating: 0, count: graph.edges.count)
        for (id, edge) in graph.edges.enumerated() {
            order[fill[Int(edge.from)]] = id
            fill[Int(edge.from)] += 1
        }
        var dist = [UInt32](repeating: .max, count: graph.nodeCount)
        var done = [Bool](repeating: false, count: graph.nodeCount)
        var heap: [(UInt32, Int)] = []
        func push(_ item: (UInt32, Int)) {
            heap.append(item)
            var i = heap.count - 1
            while i > 0 && heap[(i - 1) / 2].0 > heap[i].0 {
                heap.swapAt(i, (i - 1) / 2)
                i = (i - 1) / 2
            }
        }
        func pop() -> (UInt32, Int) {
            let top = heap[0]
            heap[0] = heap[heap.count - 1]
            heap.removeLast()
            var i = 0
            while true {
                var m = i
                for c in [2 * i + 1, 2 * i + 2] where c < heap.count && heap[c].0 < heap[m].0 { m = c }
                if m == i { break }
                heap.swapAt(i, m)
                i = m
            }
            return top
        }
        for seed in sources where seed.durationMilliseconds < dist[Int(seed.node)] {
            dist[Int(seed.node)] = seed.durationMilliseconds
            push((seed.durationMilliseconds, Int(seed.node)))
        }
        while !heap.isEmpty {
            let (d, u) = pop()
            if done[u] { continue }
            done[u] = true
            for k in first[u]..<first[u + 1] {
                let edge = graph.edges[order[k]]
                let nd = d + edge.durationMilliseconds
                if nd < dist[Int(edge.to)] {
                    dist[Int(edge.to)] = nd
                    push((nd, Int(edge.to)))
                }
            }
        }
        return dist
    }

    /// The oracle's duration between seed lists.
    static func duration(_ graph: ContractionGraph, from sources: [ContractionSeed], to targets: [ContractionSeed])
        -> UInt32
    {
        let dist = dijkstra(graph, from: sources)
        var best = UInt32.max
        for t in targets where dist[Int(t.node)] != .max {
            best = min(best, dist[Int(t.node)] + t.durationMilliseconds)
        }
        return best
    }
}
