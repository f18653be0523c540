/// An error from `CabOSM`: a growable `Code`, a message safe to show, and an optional underlying error.
public struct OSMError: Error, Sendable, CustomStringConvertible {
    /// What kind of failure this is.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        /// A stable, machine-readable name ("truncated").
        public let name: String
        /// Creates a code.
        public init(_ name: String) { self.name = name }
        /// The name.
        public var description: String { name }

        /// The file ends in the middle of a blob header or blob.
        public static let truncated = Code("truncated")
        /// Bytes that do not decode: bad lengths, varints, string indexes, zlib data, coordinates.
        public static let corrupt = Code("corrupt")
        /// Valid PBF using something this reader does not implement (lzma/zstd blobs, history files).
        public static let unsupported = Code("unsupported")
        /// The operating system refused to open or read the file.
        public static let io = Code("io")
    }

    /// What kind of failure this is.
    public var code: Code
    /// What happened and what to do, safe to show a user.
    public var message: String
    /// The lower-level error, if any.
    public var underlying: (any Error & Sendable)?
    /// The byte offset in the file where decoding went wrong (for compressed data: where its blob starts).
    public var byteOffset: Int?

    /// Creates an error.
    public init(_ code: Code, _ message: String, underlying: (any Error & Sendable)? = nil, byteOffset: Int? = nil) {
        self.code = code
        self.message = message
        self.underlying = underlying
        self.byteOffset = byteOffset
    }

    /// The message.
    public var description: String { message }
}
