import CSQLite

/// One SQLite connection. Not thread-safe: its owner serialises use (a `Mutex`, a serial queue or one thread).
///
/// `@unchecked Sendable`: the connection is opened in SQLite's multi-thread mode, so it may move between threads,
/// and every owner in SwiftCab guards it with a lock so that only one thread uses it at a time.
public final class SQLiteDatabase: @unchecked Sendable {
    /// How to open the file.
    public enum Mode: Sendable {
        /// Read and write, create when missing.
        case readWriteCreate
        /// Read only; the file must exist.
        case readOnly
    }

    let handle: OpaquePointer
    /// The path it was opened with.
    public let path: String

    /// Opens (`sqlite3_open_v2`) the database at `path` (":memory:" for a private in-memory one).
    public init(path: String, mode: Mode = .readWriteCreate) throws(SQLiteError) {
        _ = memoryStatisticsOff
        var db: OpaquePointer?
        let flags: Int32 =
            switch mode {
            case .readWriteCreate: SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
            case .readOnly: SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX
            }
        let rc = sqlite3_open_v2(path, &db, flags, nil)
        guard rc == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            if let db { sqlite3_close_v2(db) }
            throw SQLiteError(code: .init(rawValue: rc & 0xff), message: "\(message) (\(path))")
        }
        handle = db
        self.path = path
        sqlite3_extended_result_codes(db, 0)
        sqlite3_busy_timeout(db, 5000)
    }

    deinit {
        sqlite3_close_v2(handle)
    }

    /// Grows (and allocates) the database file in steps of `bytes` instead of page by page
    /// (`sqlite3_file_control` with `SQLITE_FCNTL_CHUNK_SIZE`): fewer file-size changes for the journal of the
    /// file system to commit with every fsync.
    public func setChunkSize(_ bytes: Int32) throws(SQLiteError) {
        var size = bytes
        let code = sqlite3_file_control(handle, "main", SQLITE_FCNTL_CHUNK_SIZE, &size)
        guard code == SQLITE_OK else {
            throw SQLiteError(code: .init(rawValue: code & 0xff), message: "cannot set the chunk size")
        }
    }

    /// Runs one or more SQL statements with no parameters and no results (`sqlite3_exec`).
    public func execute(_ sql: String) throws(SQLiteError) {
        var errorMessage: UnsafeMutablePointer<CChar>?
        let rc = sqlite3_exec(handle, sql, nil, nil, &errorMessage)
        if rc != SQLITE_OK {
            let message = errorMessage.map { String(cString: $0) } ?? lastErrorMessage
            sqlite3_free(errorMessage)
            throw SQLiteError(code: .init(rawValue: rc & 0xff), message: message)
        }
    }

    /// Compiles `sql` (`sqlite3_prepare_v3`).
    public func prepare(_ sql: String, persistent: Bool = false) throws(SQLiteError) -> SQLiteStatement {
        var stmt: OpaquePointer?
        let flags: UInt32 = persistent ? UInt32(SQLITE_PREPARE_PERSISTENT) : 0
        let rc = sqlite3_prepare_v3(handle, sql, -1, flags, &stmt, nil)
        guard rc == SQLITE_OK, let stmt else { throw error(rc) }
        return SQLiteStatement(stmt, database: self)
    }

    /// Runs `sql` with `parameters` and discards any rows.
    public func run(_ sql: String, _ parameters: [any SQLiteBindable] = []) throws(SQLiteError) {
        let stmt = try prepare(sql)
        try stmt.bind(parameters)
        while try stmt.step() {}
    }

    /// Runs `sql` with `parameters` and maps every row.
    public func query<T>(
        _ sql: String, _ parameters: [any SQLiteBindable] = [], row: (SQLiteRow) throws(SQLiteError) -> T
    ) throws(SQLiteError) -> [T] {
        let stmt = try prepare(sql)
        try stmt.bind(parameters)
        var result: [T] = []
        while try stmt.step() { result.append(try row(SQLiteRow(statement: stmt))) }
        return result
    }

    /// Runs `body` inside `BEGIN IMMEDIATE` ... `COMMIT`, rolling back when it throws.
    public func transaction<T>(_ body: () throws -> T) throws -> T {
        try execute("BEGIN IMMEDIATE")
        do {
            let result = try body()
            try execute("COMMIT")
            return result
        } catch {
            try? execute("ROLLBACK")  // the original error matters more; a failed rollback leaves autocommit on
            throw error
        }
    }

    /// The rowid of the last insert (`sqlite3_last_insert_rowid`).
    public var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(handle) }

    /// Rows changed by the last statement (`sqlite3_changes`).
    public var changes: Int { Int(sqlite3_changes(handle)) }

    var lastErrorMessage: String { String(cString: sqlite3_errmsg(handle)) }

    func error(_ rc: Int32) -> SQLiteError {
        SQLiteError(code: .init(rawValue: rc & 0xff), message: lastErrorMessage)
    }
}

/// Set once before the first connection opens (a global `let` runs its initialiser once, thread-safely).
private let memoryStatisticsOff: Int32 = cab_sqlite3_disable_memory_statistics()
