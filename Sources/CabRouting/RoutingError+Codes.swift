extension RoutingError.Code {
    /// No road lies within the snapping distance of a coordinate.
    public static let noRoadNearby = Self("no-road-nearby")
    /// A coordinate is not a valid latitude/longitude.
    public static let invalidCoordinate = Self("invalid-coordinate")
    /// No road path joins the start and the end.
    public static let unroutable = Self("unroutable")
    /// A graph file could not be read or written.
    public static let fileAccess = Self("file-access")
    /// A file is not a SwiftCab road graph, or is damaged.
    public static let corruptFile = Self("corrupt-file")
    /// A graph file was written by another format version.
    public static let wrongVersion = Self("wrong-version")
    /// A graph file was built from another map.
    public static let wrongMap = Self("wrong-map")
}
