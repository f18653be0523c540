/// An error from `CabPlaces`: a growable `Code`, a message safe to show, and an optional underlying error.
///
/// Codes a caller caused (`invalidQuery`, `queryTooLong`, `invalidLimit`, `invalidCoordinate`) map to 400;
/// the others (`storage`, `notAnIndex`) are the server's problem.
public struct PlacesError: Error, Sendable, CustomStringConvertible {
    /// What kind of failure this is.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        /// A stable, machine-readable name ("truncated").
        public let name: String
        /// Creates a code.
        public init(_ name: String) { self.name = name }
        /// The name.
        public var description: String { name }

        /// The query text holds characters a search cannot take (control characters).
        public static let invalidQuery = Code("invalid_query")
        /// The query text is longer than `PlaceIndex.maximumQueryLength`.
        public static let queryTooLong = Code("query_too_long")
        /// The result limit is outside `1...PlaceIndex.maximumLimit`.
        public static let invalidLimit = Code("invalid_limit")
        /// A coordinate or radius is out of range or not finite.
        public static let invalidCoordinate = Code("invalid_coordinate")
        /// The file is missing or is not a place index of this version.
        public static let notAnIndex = Code("not_an_index")
        /// SQLite failed while building or reading the index.
        public static let storage = Code("storage")
    }

    /// What kind of failure this is.
    public var code: Code
    /// What happened and what to do, safe to show a user.
    public var message: String
    /// The lower-level error, if any.
    public var underlying: (any Error & Sendable)?

    /// Creates an error.
    public init(_ code: Code, _ message: String, underlying: (any Error & Sendable)? = nil) {
        self.code = code
        self.message = message
        self.underlying = underlying
    }

    /// True when the caller's input caused it (an HTTP layer answers 400).
    public var isCallerError: Bool {
        [.invalidQuery, .queryTooLong, .invalidLimit, .invalidCoordinate].contains(code)
    }

    /// The message.
    public var description: String { message }
}
