import CabGeo
import CabOSM
import CabPlaces

/// Turns OSM elements into `PlaceFeature`s and feeds a `PlaceIndexBuilder`: nodes as points, ways as lines or
/// (closed, not a plain highway) areas, multipolygon and boundary relations as areas made of their member ways
/// joined into rings. Nodes and ways missing from the extract are skipped, so a clipped way or relation is
/// indexed from what is there.
///
/// Memory: it remembers every node's coordinate (ways need them; 24 bytes a node, none when it reads them from a
/// table shared with the other consumers of the pass, `useNodes(_:)`) and every way's node list (relations come
/// after ways and may use any way as a member): 8 bytes a way node.
public struct PlaceImport: OSMElementHandler {
    /// The builder being fed.
    public let builder: PlaceIndexBuilder
    private var nodes: ImportNodes
    private var wayNodes: [Int64: [Int64]] = [:]

    /// Relation types whose member ways make an area.
    static let areaRelationTypes: Set<String> = ["multipolygon", "boundary"]

    /// An importer feeding `builder`; with `storesNodes` false it keeps no coordinates and reads them from the
    /// table given to `useNodes(_:)`.
    public init(builder: PlaceIndexBuilder, storesNodes: Bool = true) {
        self.builder = builder
        nodes = ImportNodes(storesNodes: storesNodes)
    }

    /// Reads node coordinates from `lookup` (a table another consumer of the pass keeps) from now on.
    public mutating func useNodes(_ lookup: NodeLookup) {
        nodes.use(lookup)
    }

    /// Forgets the nodes and way node lists (after the last element; `finish()` needs neither).
    public mutating func releaseElements() {
        nodes.release()
        wayNodes = [:]
    }

    /// Remembers the node's coordinate (unless the nodes come from a shared table); a tagged node becomes a point
    /// feature.
    public mutating func handle(_ node: OSMNode) throws {
        nodes.add(node.id, node.coordinate)
        guard !node.tags.isEmpty else { return }
        builder.add(
            PlaceFeature(source: PlaceSourceID(.node, node.id), tags: node.tags, geometry: .point(node.coordinate)))
    }

    /// Remembers the way's nodes; a tagged way becomes a line or an area.
    public mutating func handle(_ way: OSMWay) throws {
        wayNodes[way.id] = way.nodeIDs
        guard !way.tags.isEmpty else { return }
        nodes.prepare()
        let points = way.nodeIDs.compactMap { nodes.coordinate(of: $0) }
        guard !points.isEmpty else { return }
        let closed = way.nodeIDs.count >= 4 && way.nodeIDs.first == way.nodeIDs.last
        let isArea = closed && (way.tags["highway"] == nil || way.tags["area"] == "yes") && way.tags["area"] != "no"
        builder.add(
            PlaceFeature(
                source: PlaceSourceID(.way, way.id), tags: way.tags, geometry: isArea ? .area([points]) : .line(points))
        )
    }

    /// A multipolygon or boundary relation becomes an area from its outer member ways, joined into rings.
    public mutating func handle(_ relation: OSMRelation) throws {
        guard let type = relation.tags["type"], Self.areaRelationTypes.contains(type) else { return }
        var tags = relation.tags
        tags["type"] = nil
        guard !tags.isEmpty else { return }
        let outer = relation.members.filter { $0.type == .way && $0.role != "inner" }.compactMap { wayNodes[$0.ref] }
        nodes.prepare()
        let parts = Self.joinRings(outer).map { $0.compactMap { nodes.coordinate(of: $0) } }.filter { !$0.isEmpty }
        guard !parts.isEmpty else { return }
        builder.add(PlaceFeature(source: PlaceSourceID(.relation, relation.id), tags: tags, geometry: .area(parts)))
    }

    /// Writes the index (`PlaceIndexBuilder.finish`).
    public func finish() throws(PlacesError) -> PlaceIndexBuildReport {
        try builder.finish()
    }

    /// Joins ways that share end nodes into longer chains (closed rings when the data is complete).
    /// - Complexity: O(w²) in the number of member ways.
    static func joinRings(_ ways: [[Int64]]) -> [[Int64]] {
        var pending = ways.filter { !$0.isEmpty }
        var rings: [[Int64]] = []
        while var chain = pending.popLast() {
            var extended = true
            while extended, chain.first != chain.last || chain.count < 2 {
                extended = false
                for (i, way) in pending.enumerated() {
                    if way.first == chain.last {
                        chain += way.dropFirst()
                    } else if way.last == chain.last {
                        chain += way.reversed().dropFirst()
                    } else if way.last == chain.first {
                        chain = way + chain.dropFirst()
                    } else if way.first == chain.first {
                        chain = way.reversed() + chain.dropFirst()
                    } else {
                        continue
                    }
                    pending.remove(at: i)
                    extended = true
                    break
                }
            }
            rings.append(chain)
        }
        return rings
    }
}
