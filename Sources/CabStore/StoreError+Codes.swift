import CabSQLite

extension StoreError.Code {
    /// The file was written by a newer SwiftCab (its schema version is higher than this binary knows).
    public static let schemaTooNew = Self("schema_too_new")
    /// The file is not a SwiftCab store.
    public static let notAStore = Self("not_a_store")
    /// SQLite failed (disk full, I/O error, locked too long, ...).
    public static let database = Self("database")
    /// A row broke a constraint (an unknown rider, a duplicate id).
    public static let constraint = Self("constraint")
    /// A stored row could not be read back (damaged or hand-edited file).
    public static let corruptRow = Self("corrupt_row")
    /// The store was closed.
    public static let closed = Self("closed")
    /// The store file is empty or missing although the data directory shows it held data.
    public static let emptied = Self("emptied")
}

extension StoreError {
    /// Wraps a SQLite failure.
    static func wrapping(_ error: SQLiteError) -> StoreError {
        if error.code == .constraint {
            return StoreError(.constraint, "The data breaks a rule of the store: \(error.message).", underlying: error)
        }
        return StoreError(.database, "The database failed: \(error.message).", underlying: error)
    }

    /// Passes domain and store errors through and wraps SQLite's.
    static func translating(_ error: any Error) -> any Error {
        if let sqlite = error as? SQLiteError { return wrapping(sqlite) }
        return error
    }
}
