/// An error from Redis or from the connection to it.
public struct RedisError: Error, Sendable, CustomStringConvertible {
    /// What kind of failure this is.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        /// A short name.
        public let rawValue: String
        /// Creates a code.
        public init(_ rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// The connection could not be made, or broke (hiredis `REDIS_ERR_IO`/`REDIS_ERR_EOF`): reconnect.
        public static let connection = Code("connection")
        /// The server answered something hiredis could not parse.
        public static let proto = Code("protocol")
        /// The server refused the command (its error line is the message: `WRONGTYPE ...`, `NOSCRIPT ...`).
        public static let server = Code("server")
        /// A reply of another shape than the caller expected.
        public static let unexpectedReply = Code("unexpected_reply")
    }

    /// The kind.
    public let code: Code
    /// hiredis's or the server's message.
    public let message: String

    /// Creates an error.
    public init(code: Code, message: String) {
        self.code = code
        self.message = message
    }

    /// True when the connection is gone: the caller may reconnect and try again.
    public var isConnectionLost: Bool { code == .connection || code == .proto }

    /// "Redis connection error: Connection refused".
    public var description: String { "Redis \(code) error: \(message)" }
}
