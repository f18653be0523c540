import CabBaseMap
import CabGeo
import CabOSM

/// Turns OSM elements into the drawable base map (roads, water, green, buildings, railways) and writes them to a
/// `BaseMapWriter` as they arrive.
///
/// Nodes are remembered (id and coordinate, 24 bytes each; or looked up in a table shared with the other
/// consumers of the pass, `useNodes(_:)`) so that ways can be drawn, and the node lists of ways that are not roads
/// or railways are remembered for the multipolygon relations that come after them. Nodes an extract clipped away
/// are skipped: a line is cut into parts there, and an area keeps the nodes it has. Call `finish()` after the last
/// element.
public struct BaseMapImport: OSMElementHandler {
    private let writer: BaseMapWriter
    private var nodes: ImportNodes
    private var memberWayNodes: [Int64: [Int64]] = [:]

    /// A handler writing into `writer`; with `storesNodes` false it keeps no coordinates and reads them from the
    /// table given to `useNodes(_:)`.
    public init(writer: BaseMapWriter, storesNodes: Bool = true) {
        self.writer = writer
        nodes = ImportNodes(storesNodes: storesNodes)
    }

    /// Remembers the node's coordinate (unless the nodes come from a shared table).
    public mutating func handle(_ node: OSMNode) throws {
        nodes.add(node.id, node.coordinate)
    }

    /// Reads node coordinates from `lookup` (a table another consumer of the pass keeps) from now on.
    public mutating func useNodes(_ lookup: NodeLookup) {
        nodes.use(lookup)
    }

    /// Forgets the nodes and member ways (after the last element; `finish()` needs neither).
    public mutating func releaseElements() {
        nodes.release()
        memberWayNodes = [:]
    }

    /// Writes the way as a feature when its tags are drawable; remembers it for multipolygons otherwise.
    public mutating func handle(_ way: OSMWay) throws {
        nodes.prepare()
        let style = Self.style(of: way.tags)
        if style?.kind != .road && style?.kind != .railway { memberWayNodes[way.id] = way.nodeIDs }
        guard let style else { return }
        let geometry: BaseMapGeometry
        if style.isArea {
            guard way.nodeIDs.count >= 4, way.nodeIDs.first == way.nodeIDs.last else { return }
            guard let ring = closedRing(way.nodeIDs.compactMap(coordinate(of:))) else { return }
            geometry = .polygon([ring])
        } else {
            let parts = lineParts(way.nodeIDs)
            guard let first = parts.first else { return }
            geometry = parts.count == 1 ? .lineString(first) : .multiLineString(parts)
        }
        try writer.add(
            BaseMapFeature(
                kind: style.kind, featureClass: style.featureClass, name: way.tags["name"], geometry: geometry))
    }

    /// Writes a drawable multipolygon relation, its rings assembled from its member ways.
    public mutating func handle(_ relation: OSMRelation) throws {
        guard relation.tags["type"] == "multipolygon", let style = Self.style(of: relation.tags), style.isArea else {
            return
        }
        nodes.prepare()
        var outer: [[Int64]] = []
        var inner: [[Int64]] = []
        for member in relation.members where member.type == .way {
            guard let nodes = memberWayNodes[member.ref] else { continue }
            let present = nodes.filter { coordinate(of: $0) != nil }
            if member.role == "inner" { inner.append(present) } else { outer.append(present) }
        }
        let outerRings = RingAssembly.rings(from: outer).map { $0.compactMap(coordinate(of:)) }
        let innerRings = RingAssembly.rings(from: inner).map { $0.compactMap(coordinate(of:)) }
        let polygons = RingAssembly.polygons(outer: outerRings, inner: innerRings)
        guard !polygons.isEmpty else { return }
        let geometry: BaseMapGeometry = polygons.count == 1 ? .polygon(polygons[0]) : .multiPolygon(polygons)
        try writer.add(
            BaseMapFeature(
                kind: style.kind, featureClass: style.featureClass, name: relation.tags["name"], geometry: geometry))
    }

    /// Commits the base map.
    public func finish() throws {
        try writer.finish()
    }

    /// Reads the PBF at `pbfPath` once and writes its base map to `outputPath` (by convention
    /// `DATA/\(BaseMapIndex.fileName)`), replacing any file there. Returns how many features of each kind it wrote.
    @discardableResult
    public static func importFile(pbfPath: String, to outputPath: String) throws -> [BaseMapKind: Int] {
        let reader = try PBFReader(path: pbfPath)
        let writer = try BaseMapWriter(path: outputPath)
        var handler = BaseMapImport(writer: writer)
        try reader.read(into: &handler)
        try handler.finish()
        return writer.countsByKind
    }

    /// How a tagged element is drawn: kind, class, and whether it is an area.
    public struct Style: Equatable, Sendable {
        /// The kind.
        public var kind: BaseMapKind
        /// The class within the kind.
        public var featureClass: String
        /// True when the element is drawn as an area (closed way or multipolygon).
        public var isArea: Bool
    }

    static let roadClasses: Set<String> = [
        "motorway", "trunk", "primary", "secondary", "tertiary", "residential", "unclassified", "living_street",
        "road", "service", "pedestrian", "track", "footway", "path", "cycleway", "steps", "bridleway",
    ]
    static let railwayClasses: Set<String> = [
        "rail", "light_rail", "subway", "tram", "narrow_gauge", "monorail", "funicular",
    ]
    static let waterwayClasses: Set<String> = ["river", "canal", "stream", "ditch", "drain"]
    static let greenClasses: [String: Set<String>] = [
        "leisure": ["park", "garden", "playground", "pitch", "nature_reserve", "golf_course", "common"],
        "landuse": [
            "grass", "forest", "meadow", "recreation_ground", "village_green", "cemetery", "allotments", "orchard",
            "vineyard",
        ],
        "natural": ["wood", "scrub", "grassland", "heath"],
    ]

    /// The style for `tags`, nil when the element is not drawn on the base map.
    public static func style(of tags: [String: String]) -> Style? {
        if let highway = tags["highway"] {
            let base = highway.hasSuffix("_link") ? String(highway.dropLast(5)) : highway
            if roadClasses.contains(base) { return Style(kind: .road, featureClass: base, isArea: false) }
        }
        if let railway = tags["railway"], railwayClasses.contains(railway), tags["tunnel"] == nil {
            return Style(kind: .railway, featureClass: railway, isArea: false)
        }
        if tags["natural"] == "coastline" { return Style(kind: .water, featureClass: "coastline", isArea: false) }
        if let waterway = tags["waterway"] {
            if waterwayClasses.contains(waterway) { return Style(kind: .water, featureClass: waterway, isArea: false) }
            if waterway == "riverbank" { return Style(kind: .water, featureClass: "water", isArea: true) }
        }
        if tags["natural"] == "water" || tags["landuse"] == "reservoir" || tags["landuse"] == "basin" {
            return Style(kind: .water, featureClass: "water", isArea: true)
        }
        if let building = tags["building"], building != "no" {
            return Style(kind: .building, featureClass: "building", isArea: true)
        }
        for (key, classes) in greenClasses.sorted(by: { $0.key < $1.key }) {
            if let value = tags[key], classes.contains(value) {
                return Style(kind: .green, featureClass: value, isArea: true)
            }
        }
        return nil
    }

    private func coordinate(of id: Int64) -> Coordinate? {
        nodes.coordinate(of: id)
    }

    /// The runs of consecutive nodes that are present, each at least two points long.
    private func lineParts(_ ids: [Int64]) -> [[Coordinate]] {
        var parts: [[Coordinate]] = []
        var current: [Coordinate] = []
        for id in ids {
            if let c = coordinate(of: id) {
                current.append(c)
            } else {
                if current.count >= 2 { parts.append(current) }
                current = []
            }
        }
        if current.count >= 2 { parts.append(current) }
        return parts
    }

    private func closedRing(_ points: [Coordinate]) -> [Coordinate]? {
        guard let first = points.first else { return nil }
        let ring = points.last == first ? points : points + [first]
        return ring.count >= 4 ? ring : nil
    }
}
