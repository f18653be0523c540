import CabGeo

/// The OSM element a place came from: its type and id (`node/606996919`).
public struct PlaceSourceID: Hashable, Sendable, Codable, CustomStringConvertible {
    /// What an OSM element is.
    public enum ElementType: String, Hashable, Sendable, Codable {
        /// An OSM node.
        case node
        /// An OSM way.
        case way
        /// An OSM relation.
        case relation
    }

    /// The element type.
    public var type: ElementType
    /// The OSM id.
    public var id: Int64

    /// Creates a source id.
    public init(_ type: ElementType, _ id: Int64) {
        self.type = type
        self.id = id
    }

    /// `node/123`, as on openstreetmap.org.
    public var description: String { "\(type.rawValue)/\(id)" }

    var code: Int {
        switch type {
        case .node: 0
        case .way: 1
        case .relation: 2
        }
    }

    init(code: Int, id: Int64) {
        self.init(code == 0 ? .node : code == 1 ? .way : .relation, id)
    }
}

/// The shape of a feature as far as the extract holds it (a way or relation cut by the edge keeps what is there).
public enum PlaceGeometry: Sendable, Equatable {
    /// A node.
    case point(Coordinate)
    /// An open way (a street segment, a footpath).
    case line([Coordinate])
    /// A closed way or a multipolygon: each part is a ring or, when clipped, the member way's surviving nodes.
    case area([[Coordinate]])

    /// Every vertex of every part.
    var allPoints: [Coordinate] {
        switch self {
        case .point(let p): [p]
        case .line(let line): line
        case .area(let parts): parts.flatMap { $0 }
        }
    }

    /// The parts as polylines (one for a point or a line).
    var parts: [[Coordinate]] {
        switch self {
        case .point(let p): [[p]]
        case .line(let line): [line]
        case .area(let parts): parts
        }
    }
}

/// One OSM element handed to `PlaceIndexBuilder`: where it came from, its tags and its geometry.
public struct PlaceFeature: Sendable, Equatable {
    /// The OSM element.
    public var source: PlaceSourceID
    /// Its OSM tags.
    public var tags: [String: String]
    /// Its shape.
    public var geometry: PlaceGeometry

    /// Creates a feature.
    public init(source: PlaceSourceID, tags: [String: String], geometry: PlaceGeometry) {
        self.source = source
        self.tags = tags
        self.geometry = geometry
    }
}
