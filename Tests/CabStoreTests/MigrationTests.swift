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

    /// Schema 9: a file from before trip versions gets each trip's version from its history.
    @Test func tripsStoredBeforeVersionsGetTheirHistorysLength() throws {
        let f = try StoreFixture()
        let rider = try f.makeRider()
        var machine = TripStateMachine(booking: f.newBooking(for: rider), tariff: .standard)
        let step = try machine.handle(.dispatch, by: .system, at: f.clockStart)
        let dispatching = try f.store.create(
            machine.booking, idempotencyKey: nil, transitions: [try #require(step.record)]
        ).booking
        let requested = try f.store.create(f.newBooking(for: rider, at: 1), idempotencyKey: nil).booking
        f.store.close()
        let db = try SQLiteDatabase(path: f.path)
        try db.execute("ALTER TABLE bookings DROP COLUMN version; PRAGMA user_version = 8")
        try f.reopen()
        #expect(try f.store.booking(dispatching.id)?.version == 2)
        #expect(try f.store.booking(requested.id)?.version == 1)
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
