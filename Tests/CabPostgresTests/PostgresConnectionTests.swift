import CabTestSupport
import Foundation
import Synchronization
import Testing

@testable import CabPostgres

/// The libpq wrapper against a real PostgreSQL started for each test (`PostgresTestServer`).
@Suite struct PostgresConnectionTests {
    @Test func roundTripsValuesAsParametersNeverAsSQL() throws {
        let server = try PostgresTestServer()
        defer { server.stop() }
        let db = try PostgresConnection(conninfo: server.conninfo)
        try db.execute("CREATE TABLE t (i bigint, d double precision, s text, b bytea, f boolean, n text)")
        let hostile = "Kämp'); DROP TABLE t; --"
        try db.query(
            "INSERT INTO t VALUES ($1, $2, $3, $4, $5, $6)",
            [Int64.max, 1.5, hostile, PostgresValue.bytes([0, 1, 255]), true, String?.none])
        let row = try #require(try db.query("SELECT i, d, s, b, f, n FROM t").first)
        #expect(try row.int64(0) == Int64.max)
        #expect(try row.double(1) == 1.5)
        #expect(row.string(2) == hostile)
        #expect(try row.bytes(3) == [0, 1, 255])
        #expect(try row.bool(4) == true)
        #expect(row.isNull(5))
        #expect(try db.query("SELECT count(*) FROM t").first?.int(0) == 1)  // the table is still there
    }

    @Test func mapsConstraintFailuresToTheirSQLState() throws {
        let server = try PostgresTestServer()
        defer { server.stop() }
        let db = try PostgresConnection(conninfo: server.conninfo)
        try db.execute("CREATE TABLE riders (id text PRIMARY KEY, name text NOT NULL CHECK (name <> ''))")
        try db.query("INSERT INTO riders VALUES ($1, $2)", ["r1", "Aino"])
        let duplicate = #expect(throws: PostgresError.self) {
            try db.query("INSERT INTO riders VALUES ($1, $2)", ["r1", "Eero"])
        }
        #expect(duplicate?.code == .uniqueViolation)
        #expect(duplicate?.constraint == "riders_pkey")
        let empty = #expect(throws: PostgresError.self) {
            try db.query("INSERT INTO riders VALUES ($1, $2)", ["r2", ""])
        }
        #expect(empty?.code == .checkViolation)
        let missing = #expect(throws: PostgresError.self) { try db.query("SELECT * FROM nowhere") }
        #expect(missing?.code == .undefinedTable)
        // The connection is still usable after each failure.
        #expect(try db.query("SELECT count(*) FROM riders").first?.int(0) == 1)
    }

    @Test func aWrongPasswordOrDatabaseIsNamedAtConnect() throws {
        let server = try PostgresTestServer()
        defer { server.stop() }
        let password = #expect(throws: PostgresError.self) {
            try PostgresConnection(conninfo: server.conninfo(database: "postgres", password: "wrong"))
        }
        #expect(password?.code == .invalidPassword)
        #expect(password?.isConfigurationError == true)
        let database = #expect(throws: PostgresError.self) {
            try PostgresConnection(conninfo: server.conninfo(database: "no_such_city"))
        }
        #expect(database?.code == .invalidCatalogName)
        #expect(database?.message.contains("no_such_city") == true)
        let nowhere = #expect(throws: PostgresError.self) {
            try PostgresConnection(conninfo: "host=/nonexistent-dir-\(getpid()) dbname=x connect_timeout=2")
        }
        #expect(nowhere?.code == .connectionFailure)
        #expect(nowhere?.isUnavailable == true)
    }

    @Test func aTransactionRunsAgainAfterASerializationFailure() throws {
        let server = try PostgresTestServer()
        defer { server.stop() }
        let db = try PostgresConnection(conninfo: server.conninfo)
        let other = try PostgresConnection(conninfo: server.conninfo)
        try db.execute("CREATE TABLE seats (trip text PRIMARY KEY, driver text)")
        try db.query("INSERT INTO seats VALUES ($1, NULL)", ["t1"])
        var attempts = 0
        let winner = try db.transaction(isolation: .serializable) { tx -> String in
            attempts += 1
            let current = try tx.query("SELECT driver FROM seats WHERE trip = $1", ["t1"]).first?.string(0)
            if attempts == 1 {
                // A concurrent transaction writes the same row and commits first: this one must fail with 40001.
                try other.execute("UPDATE seats SET driver = 'd2' WHERE trip = 't1'")
            }
            if let current { return current }
            try tx.query("UPDATE seats SET driver = $1 WHERE trip = $2", ["d1", "t1"])
            return "d1"
        }
        #expect(attempts == 2)
        #expect(winner == "d2")  // the second attempt saw the other transaction's row
        #expect(try db.query("SELECT driver FROM seats").first?.string(0) == "d2")
    }

    @Test func aPipelinedTransactionStandsOrFallsTogether() throws {
        let server = try PostgresTestServer()
        defer { server.stop() }
        let db = try PostgresConnection(conninfo: server.conninfo)
        try db.execute("CREATE TABLE bookings (id text PRIMARY KEY, fare bigint NOT NULL)")
        let batch = (0..<200).map { PostgresStatement("INSERT INTO bookings VALUES ($1, $2)", ["b\($0)", $0]) }
        let results = try db.pipeline(batch + [PostgresStatement("SELECT count(*) FROM bookings")], transaction: true)
        #expect(results.count == 201)
        #expect(results.first?.affectedRows == 1)
        #expect(try results.last?.first?.int(0) == 200)
        // One duplicate in a batch: nothing of that batch is kept, and the connection works afterwards.
        let bad = [
            PostgresStatement("INSERT INTO bookings VALUES ($1, $2)", ["new", 1]),
            PostgresStatement("INSERT INTO bookings VALUES ($1, $2)", ["b7", 1]),
        ]
        let failure = #expect(throws: PostgresError.self) { try db.pipeline(bad, transaction: true) }
        #expect(failure?.code == .uniqueViolation)
        #expect(try db.query("SELECT count(*) FROM bookings").first?.int(0) == 200)
        #expect(try db.query("SELECT count(*) FROM bookings WHERE id = $1", ["new"]).first?.int(0) == 0)
    }

    @Test func thePoolRecoversAfterTheServerRestarts() throws {
        let server = try PostgresTestServer()
        defer { server.stop() }
        let changes = Recorded<PostgresPool.Health>()
        let pool = try PostgresPool(
            .init(conninfo: server.conninfo, size: 2), onHealthChange: { h in changes.append(h) })
        try pool.withConnection { try $0.execute("CREATE TABLE fixes (n bigint)") }
        try server.stopServer()
        let down = #expect(throws: PostgresError.self) {
            try pool.withConnection { try $0.query("INSERT INTO fixes VALUES ($1)", [1]) }
        }
        #expect(down?.isUnavailable == true)
        // Still down: the pool says so again without a second health change.
        _ = try? pool.withConnection { try $0.query("SELECT 1") }
        try server.start()
        try pool.withConnection { try $0.query("INSERT INTO fixes VALUES ($1)", [2]) }
        #expect(try pool.withConnection { try $0.query("SELECT n FROM fixes").first?.int(0) } == 2)
        let seen = changes.values
        #expect(seen.count == 2)
        #expect(seen.last == .available)
        if case .unavailable = seen.first {} else { Issue.record("first change should be unavailable: \(seen)") }
    }

    @Test func aFullPoolMakesCallersWaitThenTimeOut() throws {
        let server = try PostgresTestServer()
        defer { server.stop() }
        let pool = try PostgresPool(.init(conninfo: server.conninfo, size: 1, checkoutTimeoutMilliseconds: 200))
        let timedOut = Recorded<PostgresError>()
        try pool.withConnection { _ in
            let t = Thread {
                do { try pool.withConnection { _ in } } catch let e as PostgresError { timedOut.append(e) } catch {}
            }
            t.start()
            while !t.isFinished { usleep(10_000) }
        }
        #expect(timedOut.values.map(\.code) == [.poolTimeout])
        try pool.withConnection { try $0.query("SELECT 1") }  // free again
    }
}

/// Values appended from other threads (health callbacks, a waiting thread).
final class Recorded<T: Sendable>: Sendable {
    private let storage = Mutex<[T]>([])
    func append(_ value: T) { storage.withLock { $0.append(value) } }
    var values: [T] { storage.withLock { $0 } }
}
