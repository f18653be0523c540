import CabCore
import CabSQLite
import CabTestSupport
import Foundation
import Synchronization
import Testing

@testable import CabStore

/// A broken store is seen: a full disk, a damaged page, an emptied file (the probe's finding 5).
@Suite struct StoreHealthTests {
    let start = Instant(millisecondsSinceEpoch: 1_780_000_000_000)

    func newStore() throws -> (SQLiteStore, String) {
        let path = try TestData.temporaryDirectory("health").appendingPathComponent("cab.sqlite").path
        return (try SQLiteStore(path: path, configuration: .init(durable: false)), path)
    }

    func addRiders(_ store: SQLiteStore, _ count: Int) throws {
        for i in 0..<count {
            try store.createRider(
                Rider(id: .random(), name: "Rider \(i) " + String(repeating: "x", count: 200), createdAt: start),
                tokenHash: TokenHash(bytes: (0..<32).map { _ in UInt8.random(in: 0...255) }))
        }
    }

    /// Records every change an observer hears.
    final class Changes: Sendable {
        let seen = Mutex<[StoreHealth.Snapshot]>([])
        func attach(_ health: StoreHealth) { health.observe { s in self.seen.withLock { $0.append(s) } } }
        var problems: [StoreHealth.Problem?] { seen.withLock { $0.map(\.problem) } }
    }

    /// The disk is full (simulated with `max_page_count`, which fails writes with SQLITE_FULL as a full disk does).
    @Test func aFullDiskIsSeenOnceAndClearsWithTheNextCommit() throws {
        let (store, _) = try newStore()
        defer { store.close() }
        let changes = Changes()
        changes.attach(store.health)
        try addRiders(store, 5)
        #expect(store.health.snapshot.isHealthy)
        let pages = try store.writer.write { c in try c.first("PRAGMA page_count", [], row: { $0.int(0) }) ?? 0 }
        _ = try store.writer.write { c in try c.first("PRAGMA max_page_count = \(pages)", [], row: { $0.int(0) }) }
        var failures = 0
        for _ in 0..<5 {
            do { try addRiders(store, 20) } catch { failures += 1 }
        }
        #expect(failures == 5)
        let snapshot = store.health.snapshot
        #expect(snapshot.problem == .diskFull && snapshot.failures == 5)
        #expect(snapshot.detail.contains("is full") && snapshot.detail.contains("Free space"))
        #expect(changes.problems == [.diskFull])  // heard once, not five times
        _ = try store.writer.write { c in try c.first("PRAGMA max_page_count = 1000000", [], row: { $0.int(0) }) }
        try addRiders(store, 1)
        #expect(store.health.snapshot.isHealthy)
        #expect(changes.problems == [.diskFull, nil])
    }

    @Test func aDamagedPageIsSeenAndStaysReported() throws {
        let path = try { () throws -> String in  // the store and all its connections gone at the end of this scope
            let (store, path) = try newStore()
            try addRiders(store, 400)
            store.close()
            return path
        }()
        // Everything into the main file, so that reads come from the pages damaged below (retried while the
        // closed store's threads let go of their connections).
        var moved = false
        for _ in 0..<50 where !moved {
            do {
                let db = try SQLiteDatabase(path: path)
                try db.execute("PRAGMA journal_mode = DELETE")
                moved = true
            } catch {
                Thread.sleep(forTimeInterval: 0.1)
            }
        }
        try #require(moved)
        // Overwrite the second half of the file (riders' and tokens' pages; the schema is at the start) with garbage.
        let size = try #require(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
        let pages = size / 4096
        let handle = try #require(FileHandle(forUpdatingAtPath: path))
        try handle.seek(toOffset: UInt64(pages / 2 * 4096))
        try handle.write(contentsOf: Data(repeating: 0xA5, count: (pages - pages / 2) * 4096))
        try handle.close()
        // The header and schema are intact, so the store opens; the damage shows on the first read of a table.
        let reopened = try SQLiteStore(path: path, configuration: .init(durable: false))
        defer { reopened.close() }
        let changes = Changes()
        changes.attach(reopened.health)
        var failed = 0
        for _ in 0..<3 {
            do {
                _ = try reopened.readers.read { c in
                    try c.query("SELECT name FROM riders", [], row: { $0.string(0) }).count
                        + c.query("SELECT hash FROM tokens", [], row: { $0.blob(0) }).count
                }
            } catch {
                failed += 1
            }
        }
        #expect(failed == 3)
        #expect(reopened.health.snapshot.problem == .corrupt)
        #expect(reopened.health.snapshot.detail.contains("PRAGMA integrity_check"))
        #expect(changes.problems == [.corrupt])
        try? addRiders(reopened, 1)  // a commit does not clear damage
        #expect(reopened.health.snapshot.problem == .corrupt)
    }

    @Test func aZeroLengthStoreThatHeldDataIsRefused() throws {
        let (store, path) = try newStore()
        try addRiders(store, 3)
        store.close()
        #expect(FileManager.default.fileExists(atPath: SQLiteStore.dataMarkerPath(for: path)))
        for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        try Data().write(to: URL(fileURLWithPath: path))  // truncated to 0 bytes
        let error = #expect(throws: StoreError.self) { _ = try SQLiteStore(path: path) }
        #expect(error?.code == .emptied)
        #expect(error?.message.contains("is empty (0 bytes)") == true)
        #expect(error?.message.contains("Restore") == true && error?.message.contains(".holds-data") == true)
        try FileManager.default.removeItem(atPath: path)
        let missing = #expect(throws: StoreError.self) { _ = try SQLiteStore(path: path) }
        #expect(missing?.code == .emptied && missing?.message.contains("is missing") == true)
        // On purpose: the marker deleted, an empty store opens.
        try FileManager.default.removeItem(atPath: SQLiteStore.dataMarkerPath(for: path))
        let fresh = try SQLiteStore(path: path)
        #expect(try fresh.rider(RiderID.random()) == nil)
        fresh.close()
    }

    @Test func aZeroLengthStoreWithAWriteAheadLogIsRefusedEvenWithoutTheMarker() throws {
        let path = try TestData.temporaryDirectory("health").appendingPathComponent("cab.sqlite").path
        try Data().write(to: URL(fileURLWithPath: path))
        try Data(repeating: 1, count: 4096).write(to: URL(fileURLWithPath: path + "-wal"))
        let error = #expect(throws: StoreError.self) { _ = try SQLiteStore(path: path) }
        #expect(error?.code == .emptied && error?.message.contains("write-ahead log") == true)
    }

    @Test func aNewDataDirectoryStillOpens() throws {
        let (store, path) = try newStore()
        #expect(store.health.snapshot.isHealthy)
        store.close()
        let again = try SQLiteStore(path: path)
        again.close()
    }
}

/// A nearly full disk lets a small write through now and then between refusals: the store stays reported as full
/// (one "store failing" in the log, not one per flap) until the disk has room again.
@Suite struct StoreHealthRecoveryTests {
    @Test func aFullDiskRecoversOnlyOnceItHasRoomAgain() {
        let free = Mutex(0)
        let health = StoreHealth(
            path: "/data/cab.sqlite", now: { Instant(millisecondsSinceEpoch: 0) }, freeBytes: { free.withLock { $0 } })
        let heard = Mutex<[StoreHealth.Problem?]>([])
        health.observe { snapshot in heard.withLock { $0.append(snapshot.problem) } }
        let full = SQLiteError(code: SQLiteError.Code(rawValue: 13), message: "database or disk is full")
        health.record(full)
        free.withLock { $0 = 40 * 1024 }
        health.commitSucceeded()  // a small write fitted in the last few kilobytes
        health.record(full)
        #expect(health.snapshot.problem == .diskFull)
        #expect(heard.withLock { $0 } == [.diskFull])
        free.withLock { $0 = StoreHealth.roomToRecoverBytes }
        health.commitSucceeded()
        #expect(health.snapshot.isHealthy)
        #expect(heard.withLock { $0 } == [.diskFull, nil])
    }

    /// Without a way to ask the disk (or for an I/O error), the next commit clears the problem as before.
    @Test func withoutTheDisksFreeSpaceTheNextCommitRecovers() {
        let health = StoreHealth(path: "db", now: { Instant(millisecondsSinceEpoch: 0) })
        health.record(SQLiteError(code: SQLiteError.Code(rawValue: 13), message: "full"))
        health.commitSucceeded()
        #expect(health.snapshot.isHealthy)
    }
}
