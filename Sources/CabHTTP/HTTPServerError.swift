/// Why the server could not start or run (configuration, binding); answers to clients are `HTTPError`.
public struct HTTPServerError: Error, Sendable, CustomStringConvertible {
    /// What kind of failure.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        /// The code's name.
        public let name: String
        /// A configuration field is out of range or the host is not a numeric address.
        public static let invalidConfiguration = Code(name: "invalidConfiguration")
        /// libmicrohttpd refused to start (port in use, no permission, ...).
        public static let startFailed = Code(name: "startFailed")
        /// `start()` was called on a server that is running or stopped.
        public static let invalidState = Code(name: "invalidState")
        /// The code's name.
        public var description: String { name }
    }

    /// What kind of failure.
    public var code: Code
    /// A safe, human-readable explanation.
    public var message: String
    /// The error underneath, if any.
    public var underlying: (any Error)?

    /// Creates an error.
    public init(_ code: Code, _ message: String, underlying: (any Error)? = nil) {
        self.code = code
        self.message = message
        self.underlying = underlying
    }

    /// "code: message".
    public var description: String { "\(code): \(message)" }
}
