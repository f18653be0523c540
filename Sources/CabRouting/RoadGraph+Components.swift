extension RoadGraph {
    /// Marks the largest strongly connected component in `nodeInLargestComponent`.
    /// - Complexity: O(nodes + edges), iterative Tarjan (no recursion, so a million nodes are fine).
    /// Nodes where `ignored` is true do not count towards a component's size (the copies of destination zones,
    /// which are strongly connected among themselves).
    mutating func markLargestComponent(ignoring ignored: [Bool]? = nil) {
        let components = stronglyConnectedComponents()
        var sizes: [Int] = []
        for (v, c) in components.enumerated() {
            let c = Int(c)
            if c >= sizes.count { sizes.append(contentsOf: repeatElement(0, count: c - sizes.count + 1)) }
            if ignored?[v] != true { sizes[c] += 1 }
        }
        guard let largest = sizes.indices.max(by: { sizes[$0] < sizes[$1] }) else { return }
        nodeInLargestComponent = components.map { Int($0) == largest }
    }

    /// The strongly connected component of every node, numbered from 0.
    func stronglyConnectedComponents() -> [Int32] {
        let n = nodeCount
        let unvisited = Int32(-1)
        var index = [Int32](repeating: unvisited, count: n)
        var lowLink = [Int32](repeating: 0, count: n)
        var onStack = [Bool](repeating: false, count: n)
        var component = [Int32](repeating: -1, count: n)
        var stack: [Int32] = []
        var callStack: [(node: Int32, nextEdge: UInt32)] = []
        var counter: Int32 = 0
        var componentCount: Int32 = 0
        for root in 0..<n where index[root] == unvisited {
            callStack.append((Int32(root), firstEdge[root]))
            index[root] = counter
            lowLink[root] = counter
            counter += 1
            stack.append(Int32(root))
            onStack[root] = true
            while let (v32, e) = callStack.last {
                let v = Int(v32)
                if e < firstEdge[v + 1] {
                    callStack[callStack.count - 1].nextEdge = e + 1
                    let w = Int(edgeTargets[Int(e)])
                    if index[w] == unvisited {
                        index[w] = counter
                        lowLink[w] = counter
                        counter += 1
                        stack.append(Int32(w))
                        onStack[w] = true
                        callStack.append((Int32(w), firstEdge[w]))
                    } else if onStack[w] {
                        lowLink[v] = min(lowLink[v], index[w])
                    }
                    continue
                }
                callStack.removeLast()
                if let (parent, _) = callStack.last { lowLink[Int(parent)] = min(lowLink[Int(parent)], lowLink[v]) }
                if lowLink[v] == index[v] {
                    while let w = stack.popLast() {
                        onStack[Int(w)] = false
                        component[Int(w)] = componentCount
                        if Int(w) == v { break }
                    }
                    componentCount += 1
                }
            }
        }
        return component
    }
}
