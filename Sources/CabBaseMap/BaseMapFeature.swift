import CabGeo

/// What a base-map feature is, as the web app styles it (`properties.kind` in GeoJSON).
public enum BaseMapKind: String, Sendable, CaseIterable, Codable {
    /// A road or path; `class` is the OSM `highway` value with `_link` removed ("primary", "footway").
    case road
    /// Water: areas (`class` "water"), waterways ("river", "stream", "canal") and the coastline ("coastline").
    case water
    /// Parks and green land (`class` "park", "grass", "forest", ...).
    case green
    /// A building (`class` "building"); served only at close zoom.
    case building
    /// A railway line (`class` "rail", "tram", "light_rail", "subway", ...).
    case railway
}

/// The shape of a feature, in degrees. Rings are closed (first point repeated last); the first ring of a polygon
/// is its outer boundary and the others are holes.
public enum BaseMapGeometry: Sendable, Equatable {
    /// A line.
    case lineString([Coordinate])
    /// Several lines (a way cut into parts where an extract clipped its nodes).
    case multiLineString([[Coordinate]])
    /// An area: outer ring, then holes.
    case polygon([[Coordinate]])
    /// Several areas (a multipolygon relation).
    case multiPolygon([[[Coordinate]]])

    /// The GeoJSON `type` member.
    public var geoJSONType: String {
        switch self {
        case .lineString: "LineString"
        case .multiLineString: "MultiLineString"
        case .polygon: "Polygon"
        case .multiPolygon: "MultiPolygon"
        }
    }

    /// Every point, in order.
    public var allPoints: [Coordinate] {
        switch self {
        case .lineString(let line): line
        case .multiLineString(let lines): lines.flatMap { $0 }
        case .polygon(let rings): rings.flatMap { $0 }
        case .multiPolygon(let polygons): polygons.flatMap { $0.flatMap { $0 } }
        }
    }

    /// The smallest box around the geometry; nil when it has no points.
    public var boundingBox: BoundingBox? { BoundingBox(enclosing: allPoints) }

    /// True for polygons and multipolygons.
    public var isArea: Bool {
        switch self {
        case .polygon, .multiPolygon: true
        case .lineString, .multiLineString: false
        }
    }
}

/// One drawable thing on the base map.
public struct BaseMapFeature: Sendable, Equatable {
    /// What it is.
    public var kind: BaseMapKind
    /// The finer class within the kind ("primary", "river", "park").
    public var featureClass: String
    /// Its name (`name` tag), if any.
    public var name: String?
    /// Its shape.
    public var geometry: BaseMapGeometry

    /// Creates a feature.
    public init(kind: BaseMapKind, featureClass: String, name: String? = nil, geometry: BaseMapGeometry) {
        self.kind = kind
        self.featureClass = featureClass
        self.name = name
        self.geometry = geometry
    }
}
