/// An error from PostgreSQL or from the wrapper, with its SQLSTATE and PostgreSQL's own message.
///
/// Store code maps `code` to its own error codes (`StoreError`); the messages never contain bound values
/// (parameters are sent apart from the SQL), so they are safe to log.
public struct PostgresError: Error, Sendable, CustomStringConvertible {
    /// A SQLSTATE (five characters, <https://www.postgresql.org/docs/current/errcodes-appendix.html>), or one of
    /// the wrapper's own codes (prefix `CAB`).
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        /// The five-character code.
        public let rawValue: String
        /// Creates a code.
        public init(_ rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// `23505`: a unique index refused the row.
        public static let uniqueViolation = Code("23505")
        /// `23503`: a foreign key refused the row.
        public static let foreignKeyViolation = Code("23503")
        /// `23514`: a check constraint refused the row.
        public static let checkViolation = Code("23514")
        /// `23502`: a NOT NULL column got no value.
        public static let notNullViolation = Code("23502")
        /// `40001`: a serializable transaction lost to a concurrent one; run it again.
        public static let serializationFailure = Code("40001")
        /// `40P01`: two transactions waited on each other; one was chosen to fail; run it again.
        public static let deadlockDetected = Code("40P01")
        /// `28P01`: the password is wrong.
        public static let invalidPassword = Code("28P01")
        /// `28000`: the user may not connect (no such role, or pg_hba refuses).
        public static let invalidAuthorization = Code("28000")
        /// `3D000`: no such database.
        public static let invalidCatalogName = Code("3D000")
        /// `08006`: the connection failed or was lost.
        public static let connectionFailure = Code("08006")
        /// `57P01`: the server is shutting down (an administrator's command).
        public static let adminShutdown = Code("57P01")
        /// `57P03`: the server is starting up or in recovery and refuses connections for now.
        public static let cannotConnectNow = Code("57P03")
        /// `25006`: a write was sent to a read-only transaction (a standby).
        public static let readOnlySQLTransaction = Code("25006")
        /// `42P01`: no such table.
        public static let undefinedTable = Code("42P01")
        /// The wrapper was misused (a value of the wrong type read from a column, a statement of the wrong shape).
        public static let misuse = Code("CAB01")
        /// No connection of the pool became free in time.
        public static let poolTimeout = Code("CAB02")
    }

    /// The SQLSTATE or wrapper code.
    public let code: Code
    /// PostgreSQL's primary message (or libpq's, for connection failures).
    public let message: String
    /// PostgreSQL's detail, when it sent one.
    public let detail: String?
    /// The constraint that refused a row, for integrity violations.
    public let constraint: String?

    /// Creates an error.
    public init(code: Code, message: String, detail: String? = nil, constraint: String? = nil) {
        self.code = code
        self.message = message
        self.detail = detail
        self.constraint = constraint
    }

    /// True when running the whole transaction again may succeed (serialization failure, deadlock).
    public var isRetryableTransaction: Bool { code == .serializationFailure || code == .deadlockDetected }

    /// True when the connection is gone or the server is not taking work (class 08, the 57P0x shutdowns, a
    /// read-only standby): the pool drops the connection, and a caller may answer 503 and try later.
    public var isUnavailable: Bool {
        code.rawValue.hasPrefix("08") || code == .adminShutdown || code == .cannotConnectNow
            || code == Code("57P02") || code == .readOnlySQLTransaction
    }

    /// True for a refused login (wrong password, unknown role or database): retrying will not help.
    public var isConfigurationError: Bool {
        code == .invalidPassword || code == .invalidAuthorization || code == .invalidCatalogName
    }

    /// "PostgreSQL error 23505: duplicate key value violates unique constraint \"riders_pkey\"".
    public var description: String {
        var text = "PostgreSQL error \(code.rawValue): \(message)"
        if let detail { text += " (\(detail))" }
        return text
    }
}
