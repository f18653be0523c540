/// An error from SQLite, with the result code and SQLite's own message.
public struct SQLiteError: Error, Sendable, CustomStringConvertible {
    /// What kind of failure this is.
    public struct Code: Hashable, Sendable {
        /// The SQLite primary result code (`SQLITE_BUSY` = 5, `SQLITE_CONSTRAINT` = 19, ...).
        public let rawValue: Int32
        /// Creates a code.
        public init(rawValue: Int32) { self.rawValue = rawValue }
        /// A constraint (unique, foreign key, check) failed.
        public static let constraint = Code(rawValue: 19)
        /// The database is locked by another connection.
        public static let busy = Code(rawValue: 5)
        /// The file is not a database or is damaged.
        public static let notADatabase = Code(rawValue: 26)
        /// The file is damaged.
        public static let corrupt = Code(rawValue: 11)
        /// The file could not be opened.
        public static let cantOpen = Code(rawValue: 14)
        /// A query or value was misused (a wrapper-level failure, not SQLite's).
        public static let misuse = Code(rawValue: 21)
    }

    /// The result code (primary part).
    public let code: Code
    /// SQLite's message, safe to log (it never contains bound values).
    public let message: String

    /// Creates an error.
    public init(code: Code, message: String) {
        self.code = code
        self.message = message
    }

    /// "SQLite error 19: UNIQUE constraint failed: riders.id".
    public var description: String { "SQLite error \(code.rawValue): \(message)" }
}
