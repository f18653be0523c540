import CabGeo

/// Where a consumer of the import pass finds node coordinates: a table of its own (when it runs alone), or a
/// look-up into the table another consumer keeps (`MapImporter`: the road builder's), so that the pass holds
/// every node's coordinate once.
struct ImportNodes {
    private var own = NodeTable()
    private let storesNodes: Bool
    private var lookup: NodeLookup?

    /// Nodes kept here when `storesNodes`, else read from the look-up given to `use(_:)`.
    init(storesNodes: Bool) {
        self.storesNodes = storesNodes
    }

    /// Remembers a node (when this consumer keeps its own).
    mutating func add(_ id: Int64, _ coordinate: Coordinate) {
        guard storesNodes else { return }
        own.append(id: id, coordinate: coordinate)
        lookup = nil
    }

    /// Reads coordinates from `shared` from now on.
    mutating func use(_ shared: NodeLookup) {
        lookup = shared
    }

    /// Makes the look-up over this consumer's own nodes, once they have all arrived (before ways are read).
    mutating func prepare() {
        if lookup == nil { lookup = own.lookup() }
    }

    /// Forgets every node.
    mutating func release() {
        own = NodeTable()
        lookup = nil
    }

    /// The coordinate of node `id`, nil when it is not in the extract (or `prepare()` was not called).
    func coordinate(of id: Int64) -> Coordinate? {
        lookup?.coordinate(of: id)
    }
}
