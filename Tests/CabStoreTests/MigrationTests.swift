import CabCore
import CabSQLite
import CabTestSupport
import Foundation
import Testing

@testable import CabStore

@Suite struct MigrationTests {
    @Test func aNewFileIsAtTheLatestVersionInWALWithForeignKeys() throws {
        let f = try StoreFixture()
        let db = try SQLiteDatabase(path: f.path)
        #expect(try db.query("PRAGMA user_version") { $0.int(0) } == [SQLiteStore.schemaVersion])
        #expect(try db.query("PRAGMA journal_mode") { $0.string(0) } == ["wal"])
        try f.reopen()  // migrating an up-to-date file is a no-op
        #expect(try f.store.driver(f.driver)?.name == "Aino")
    }

    /// Schema 4: a booking without a driver has no entry in the driver index (one page less per commit of new
    /// bookings), and a driver's bookings are still found through it.
    @Test func theDriverIndexHoldsOnlyBookingsWithADriver() throws {
        let f = try StoreFixture()
        let rider = try f.makeRider()
        for i in 0..<3 { _ = try f.store.create(f.newBooking(for: rider, at: i), idempotencyKey: nil) }
        let db = try SQLiteDatabase(path: f.path)
        let definition = try db.query("SELECT sql FROM sqlite_schema WHERE name = 'bookings_by_driver'") {
            $0.string(0)
        }
        #expect(definition.first?.hasSuffix("WHERE driver_id IS NOT NULL") == true, "\(definition)")
        let plan = try db.query(
            "EXPLAIN QUERY PLAN SELECT id FROM bookings WHERE driver_id = ? ORDER BY created_ms DESC, id DESC LIMIT 21",
            ["drv_x"]
        ) { $0.string(3) }
        #expect(plan.contains { $0.contains("bookings_by_driver") }, "\(plan)")
    }

    @Test func aFileFromANewerCabIsRefusedClearly() throws {
        let f = try StoreFixture()
        f.store.close()
        let db = try SQLiteDatabase(path: f.path)
        try db.execute("PRAGMA user_version = \(SQLiteStore.schemaVersion + 1)")
        let error = #expect(throws: StoreError.self) { try SQLiteStore(path: f.path) }
        #expect(error?.code == .schemaTooNew)
        #expect(error?.message.contains("newer SwiftCab") == true)
    }

    @Test func anotherApplicationsFileIsRefused() throws {
        let dir = try TestData.temporaryDirectory("migration")
        defer { try? FileManager.default.removeItem(at: dir) }  // best effort cleanup
        let path = dir.appendingPathComponent("other.sqlite").path
        let db = try SQLiteDatabase(path: path)
        try db.execute("PRAGMA application_id = 1234; CREATE TABLE t (x)")
        let error = #expect(throws: StoreError.self) { try SQLiteStore(path: path) }
        #expect(error?.code == .notAStore)
    }
}
