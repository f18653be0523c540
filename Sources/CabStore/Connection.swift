import CabSQLite

/// A connection with a cache of prepared statements. Used by one thread at a time (the writer thread,
/// or whoever checked it out of the reader pool).
final class Connection {
    let db: SQLiteDatabase
    private var cache: [String: SQLiteStatement] = [:]

    init(_ db: SQLiteDatabase) { self.db = db }

    /// The prepared statement for `sql`, compiled once per connection.
    func statement(_ sql: String) throws(SQLiteError) -> SQLiteStatement {
        if let cached = cache[sql] { return cached }
        let statement = try db.prepare(sql, persistent: true)
        cache[sql] = statement
        return statement
    }

    /// Runs `sql` with `parameters`, discarding rows; returns the rows changed.
    @discardableResult
    func run(_ sql: String, _ parameters: [any SQLiteBindable] = []) throws(SQLiteError) -> Int {
        let s = try statement(sql)
        defer { s.reset() }
        try s.bind(parameters)
        while try s.step() {}
        return db.changes
    }

    /// Maps every row of `sql`.
    func query<T>(_ sql: String, _ parameters: [any SQLiteBindable] = [], row: (SQLiteRow) throws -> T) throws -> [T] {
        let s = try statement(sql)
        defer { s.reset() }
        try s.bind(parameters)
        var result: [T] = []
        while try s.step() { result.append(try row(s.row)) }
        return result
    }

    /// Maps the first row of `sql`, nil when there is none.
    func first<T>(_ sql: String, _ parameters: [any SQLiteBindable] = [], row: (SQLiteRow) throws -> T) throws -> T? {
        let s = try statement(sql)
        defer { s.reset() }
        try s.bind(parameters)
        return try s.step() ? row(s.row) : nil
    }
}
