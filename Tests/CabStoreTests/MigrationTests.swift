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
