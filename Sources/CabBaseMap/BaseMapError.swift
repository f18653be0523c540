/// An error from `CabBaseMap`: a growable `Code`, a message safe to show, and an optional underlying error.
public struct BaseMapError: Error, Sendable, CustomStringConvertible {
    /// What kind of failure this is.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        /// A stable, machine-readable name ("truncated").
        public let name: String
        /// Creates a code.
        public init(_ name: String) { self.name = name }
        /// The name.
        public var description: String { name }
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

    /// The message.
    public var description: String { message }
}

extension BaseMapError.Code {
    /// The base map file is missing, damaged or from an incompatible version: re-run `cab import`.
    public static let unreadable = Self("unreadable")
    /// Writing the base map file failed.
    public static let writeFailed = Self("write_failed")
}
