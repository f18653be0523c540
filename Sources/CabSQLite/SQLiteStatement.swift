import CSQLite

/// A compiled statement. Used by one thread at a time, like its database.
public final class SQLiteStatement {
    let handle: OpaquePointer
    let database: SQLiteDatabase

    init(_ handle: OpaquePointer, database: SQLiteDatabase) {
        self.handle = handle
        self.database = database
    }

    deinit {
        sqlite3_finalize(handle)
    }

    /// Resets the statement and clears its bindings (`sqlite3_reset`, `sqlite3_clear_bindings`).
    public func reset() {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }

    /// Binds `parameters` to `?1`, `?2`, ... (`sqlite3_bind_*`).
    public func bind(_ parameters: [any SQLiteBindable]) throws(SQLiteError) {
        for (offset, parameter) in parameters.enumerated() {
            try bind(parameter.sqliteValue, at: Int32(offset + 1))
        }
    }

    /// Binds one value at 1-based `index`.
    public func bind(_ value: SQLiteValue, at index: Int32) throws(SQLiteError) {
        let rc: Int32
        switch value {
        case .null: rc = sqlite3_bind_null(handle, index)
        case .integer(let v): rc = sqlite3_bind_int64(handle, index, v)
        case .real(let v): rc = sqlite3_bind_double(handle, index, v)
        case .text(let v):
            rc =
                v.utf8.withContiguousStorageIfAvailable { buffer in
                    buffer.withMemoryRebound(to: CChar.self) {
                        cab_sqlite3_bind_text_transient(handle, index, $0.baseAddress, Int32($0.count))
                    }
                } ?? cab_sqlite3_bind_text_transient(handle, index, v, -1)
        case .blob(let v):
            rc = v.withUnsafeBytes { cab_sqlite3_bind_blob_transient(handle, index, $0.baseAddress, Int32($0.count)) }
        }
        guard rc == SQLITE_OK else { throw database.error(rc) }
    }

    /// Advances to the next row (`sqlite3_step`); false when done.
    @discardableResult
    public func step() throws(SQLiteError) -> Bool {
        let rc = sqlite3_step(handle)
        switch rc {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default:
            let error = database.error(rc)
            sqlite3_reset(handle)
            throw error
        }
    }

    /// The current row.
    public var row: SQLiteRow { SQLiteRow(statement: self) }
}

/// Read access to the current row of a statement.
public struct SQLiteRow {
    let statement: SQLiteStatement

    /// The integer in column `index` (0-based; `sqlite3_column_int64`).
    public func int64(_ index: Int32) -> Int64 { sqlite3_column_int64(statement.handle, index) }
    /// The integer in column `index` as `Int`.
    public func int(_ index: Int32) -> Int { Int(int64(index)) }
    /// The double in column `index` (`sqlite3_column_double`).
    public func double(_ index: Int32) -> Double { sqlite3_column_double(statement.handle, index) }
    /// True when column `index` is NULL.
    public func isNull(_ index: Int32) -> Bool { sqlite3_column_type(statement.handle, index) == SQLITE_NULL }

    /// The text in column `index` ("" for NULL; `sqlite3_column_text`).
    public func string(_ index: Int32) -> String {
        guard let p = sqlite3_column_text(statement.handle, index) else { return "" }
        let n = Int(sqlite3_column_bytes(statement.handle, index))
        return String(decoding: UnsafeBufferPointer(start: p, count: n), as: UTF8.self)
    }

    /// The text in column `index`, nil for NULL.
    public func optionalString(_ index: Int32) -> String? { isNull(index) ? nil : string(index) }
    /// The double in column `index`, nil for NULL.
    public func optionalDouble(_ index: Int32) -> Double? { isNull(index) ? nil : double(index) }
    /// The integer in column `index`, nil for NULL.
    public func optionalInt64(_ index: Int32) -> Int64? { isNull(index) ? nil : int64(index) }

    /// Column `index` as the value it holds, by its storage class (`sqlite3_column_type`).
    public func value(_ index: Int32) -> SQLiteValue {
        switch sqlite3_column_type(statement.handle, index) {
        case SQLITE_NULL: .null
        case SQLITE_INTEGER: .integer(int64(index))
        case SQLITE_FLOAT: .real(double(index))
        case SQLITE_BLOB: .blob(blob(index))
        default: .text(string(index))
        }
    }

    /// The bytes in column `index` (`sqlite3_column_blob`).
    public func blob(_ index: Int32) -> [UInt8] {
        let n = Int(sqlite3_column_bytes(statement.handle, index))
        guard n > 0, let p = sqlite3_column_blob(statement.handle, index) else { return [] }
        return Array(UnsafeRawBufferPointer(start: p, count: n))
    }
}
