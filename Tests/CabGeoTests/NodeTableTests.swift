import Testing

@testable import CabGeo

/// The node table an import shares between the road graph, the base map and the place index.
@Suite struct NodeTableTests {
    func coordinate(_ i: Int) -> Coordinate { Coordinate(latitude: Double(i) / 100, longitude: Double(i) / 50) }

    @Test func findsEveryNodeOfASortedTable() {
        var table = NodeTable()
        for id in stride(from: 10, to: 1000, by: 7) { table.append(id: Int64(id), coordinate: coordinate(id)) }
        #expect(table.isSorted)
        let lookup = table.lookup()
        for id in 0..<1010 {
            let expected = id >= 10 && id < 1000 && (id - 10) % 7 == 0 ? coordinate(id) : nil
            #expect(lookup.coordinate(of: Int64(id)) == expected)
        }
    }

    /// Out of order (and repeated) ids, as in an unsorted extract: the node added last with an id wins, as the
    /// dictionaries the importers kept before did.
    @Test func findsNodesOfAnUnsortedTableAndTheLastOfARepeatedId() {
        var table = NodeTable()
        let ids: [Int64] = [50, 3, 9_000_000_000, 7, 3, -4, 12]
        for (i, id) in ids.enumerated() { table.append(id: id, coordinate: coordinate(i)) }
        #expect(!table.isSorted)
        let lookup = table.lookup()
        #expect(lookup.coordinate(of: 3) == coordinate(4))
        #expect(lookup.index(of: 9_000_000_000) == 2)
        #expect(lookup.coordinate(of: -4) == coordinate(5))
        #expect(lookup.coordinate(of: 12) == coordinate(6))
        #expect(lookup.coordinate(of: 4) == nil)
        #expect(lookup.coordinate(of: 9_000_000_001) == nil)
        #expect(NodeTable().lookup().coordinate(of: 1) == nil)
    }

    /// A look-up taken before more nodes arrive keeps answering for the nodes it had; the table's new nodes are
    /// found by a new look-up.
    @Test func lookupKeepsItsNodesWhenTheTableGrows() {
        var table = NodeTable()
        table.append(id: 1, coordinate: coordinate(1))
        let early = table.lookup()
        table.append(id: 2, coordinate: coordinate(2))
        #expect(early.coordinate(of: 1) == coordinate(1))
        #expect(early.coordinate(of: 2) == nil)
        #expect(table.lookup().coordinate(of: 2) == coordinate(2))
    }
}
