/// Map nodes (an id and a coordinate each) in the order they arrived: the one store of node coordinates that every
/// consumer of an import pass reads (the road graph, the base map, the place index), 24 bytes a node.
public struct NodeTable: Sendable {
    /// The ids, in arrival order.
    public private(set) var ids: [Int64] = []
    /// The coordinates, parallel to `ids`.
    public private(set) var coordinates: [Coordinate] = []
    /// True while every id was larger than the one before (a sorted extract): look-ups then need no extra memory.
    public private(set) var isSorted = true

    /// An empty table.
    public init() {}

    /// How many nodes were added.
    public var count: Int { ids.count }

    /// Adds a node.
    public mutating func append(id: Int64, coordinate: Coordinate) {
        if let last = ids.last, last >= id { isSorted = false }
        ids.append(id)
        coordinates.append(coordinate)
    }

    /// Reserves room for `count` nodes.
    public mutating func reserveCapacity(_ count: Int) {
        ids.reserveCapacity(count)
        coordinates.reserveCapacity(count)
    }

    /// A look-up by id over the nodes added so far. It shares the table's arrays (copy on write: adding nodes
    /// to the table afterwards copies the table's, not the look-up's); an unsorted table adds a sorted
    /// permutation, 4 bytes a node.
    /// - Complexity: O(1) for a sorted table, O(n log n) otherwise.
    public func lookup() -> NodeLookup { NodeLookup(table: self) }
}

/// Finds nodes of a `NodeTable` by id (binary search); of two nodes with the same id, the one added last.
public struct NodeLookup: Sendable {
    /// The table looked in.
    public let table: NodeTable
    /// Positions in id order (then arrival order), nil when the table is sorted.
    private let order: [Int32]?

    init(table: NodeTable) {
        self.table = table
        if table.isSorted {
            order = nil
        } else {
            let ids = table.ids
            order = ids.indices.sorted { ids[$0] < ids[$1] || (ids[$0] == ids[$1] && $0 < $1) }.map { Int32($0) }
        }
    }

    /// The position in the table of the node `id`, or nil when it was not added.
    /// - Complexity: O(log n).
    public func index(of id: Int64) -> Int? {
        let ids = table.ids
        let count = ids.count
        // The first position in id order whose id is larger than `id`; the one before it is the last `id`.
        var low = 0
        var high = count
        while low < high {
            let mid = (low + high) / 2
            let here = order.map { ids[Int($0[mid])] } ?? ids[mid]
            if here <= id { low = mid + 1 } else { high = mid }
        }
        guard low > 0 else { return nil }
        let position = order.map { Int($0[low - 1]) } ?? low - 1
        return ids[position] == id ? position : nil
    }

    /// The coordinate of the node `id`, or nil when it was not added.
    public func coordinate(of id: Int64) -> Coordinate? {
        index(of: id).map { table.coordinates[$0] }
    }
}
