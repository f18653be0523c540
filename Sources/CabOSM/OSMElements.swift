import CabGeo

/// An OSM node: a point with tags (most nodes have none).
public struct OSMNode: Sendable, Equatable {
    /// The OSM id.
    public var id: Int64
    /// Where it is.
    public var coordinate: Coordinate
    /// Its tags; empty for most nodes.
    public var tags: [String: String]

    /// Creates a node.
    public init(id: Int64, coordinate: Coordinate, tags: [String: String] = [:]) {
        self.id = id
        self.coordinate = coordinate
        self.tags = tags
    }
}

/// An OSM way: an ordered list of node ids with tags. In an extract, some of its nodes may be missing (clipped).
public struct OSMWay: Sendable, Equatable {
    /// The OSM id.
    public var id: Int64
    /// Its nodes in order.
    public var nodeIDs: [Int64]
    /// Its tags.
    public var tags: [String: String]

    /// Creates a way.
    public init(id: Int64, nodeIDs: [Int64], tags: [String: String] = [:]) {
        self.id = id
        self.nodeIDs = nodeIDs
        self.tags = tags
    }
}

/// What an OSM element is.
public enum OSMElementType: String, Sendable, Equatable {
    /// A node.
    case node
    /// A way.
    case way
    /// A relation.
    case relation
}

/// One member of a relation.
public struct OSMMember: Sendable, Equatable {
    /// The member's type.
    public var type: OSMElementType
    /// The member's id.
    public var ref: Int64
    /// Its role ("from", "via", "to", "outer", ...).
    public var role: String

    /// Creates a member.
    public init(type: OSMElementType, ref: Int64, role: String) {
        self.type = type
        self.ref = ref
        self.role = role
    }
}

/// An OSM relation: members with roles, and tags.
public struct OSMRelation: Sendable, Equatable {
    /// The OSM id.
    public var id: Int64
    /// Its members in order.
    public var members: [OSMMember]
    /// Its tags.
    public var tags: [String: String]

    /// Creates a relation.
    public init(id: Int64, members: [OSMMember], tags: [String: String] = [:]) {
        self.id = id
        self.members = members
        self.tags = tags
    }
}

/// Receives the elements of a file in file order (nodes, then ways, then relations in a sorted PBF).
public protocol OSMElementHandler {
    /// One node.
    mutating func handle(_ node: OSMNode) throws
    /// One way.
    mutating func handle(_ way: OSMWay) throws
    /// One relation.
    mutating func handle(_ relation: OSMRelation) throws
}
