import Testing

@testable import CabSQLite

@Suite struct SQLiteDatabaseTests {
    @Test func roundTripsValuesThroughATable() throws {
        let db = try SQLiteDatabase(path: ":memory:")
        try db.execute("CREATE TABLE t (i INTEGER, r REAL, s TEXT, b BLOB)")
        try db.run("INSERT INTO t VALUES (?, ?, ?, ?)", [42, 1.5, "Kämp", [UInt8]([1, 2, 3])])
        let rows = try db.query("SELECT i, r, s, b FROM t") { row in
            (row.int(0), row.double(1), row.string(2), row.blob(3))
        }
        #expect(rows.count == 1)
        #expect(rows[0].0 == 42 && rows[0].1 == 1.5 && rows[0].2 == "Kämp" && rows[0].3 == [1, 2, 3])
    }

    @Test func failedTransactionLeavesNothing() throws {
        let db = try SQLiteDatabase(path: ":memory:")
        try db.execute("CREATE TABLE t (id INTEGER PRIMARY KEY)")
        #expect(throws: SQLiteError.self) {
            try db.transaction {
                try db.run("INSERT INTO t VALUES (1)")
                try db.run("INSERT INTO t VALUES (1)")
            }
        }
        #expect(try db.query("SELECT count(*) FROM t") { $0.int(0) } == [0])
    }

    @Test func hasFTS5AndRTree() throws {
        let db = try SQLiteDatabase(path: ":memory:")
        try db.execute("CREATE VIRTUAL TABLE f USING fts5(name)")
        try db.execute("CREATE VIRTUAL TABLE r USING rtree(id, minX, maxX, minY, maxY)")
    }
}
