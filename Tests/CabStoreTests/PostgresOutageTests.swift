import CabCore
import CabPostgres
import CabTestSupport
import Foundation
import Synchronization
import Testing

@testable import CabStore

/// PostgreSQL going away and coming back, on servers of their own (the shared one keeps running for the
/// other suites): clear errors while it is away, each change reported once, nothing acknowledged lost, and
/// the store recovering without being reopened.
@Suite struct PostgresOutageTests {
    @Test func aRestartUnderABookingLoadLosesNothingAcknowledged() throws {
        let server = try PostgresTestServer()
        defer { server.stop() }
        let changes = Mutex<[String]>([])
        let store = try PostgresStore(
            .init(conninfo: server.conninfo, connections: 6, writers: 3, probeIntervalMilliseconds: 50))
        defer { store.close() }
        store.health.observe { snapshot in changes.withLock { $0.append(snapshot.problem?.rawValue ?? "ok") } }
        let s = try Stores(postgres: store)
        let riders = try (0..<8).map { _ in try s.makeRider().0 }
        let acknowledged = Mutex<[BookingID]>([])
        let otherFailures = Mutex<[String]>([])
        let unavailable = Atomic<Int>(0)
        let stop = Atomic<Bool>(false)
        // Signalled by the load when `count` bookings have been acknowledged.
        let goal = Mutex<(count: Int, reached: DispatchSemaphore?)>((0, nil))
        let group = DispatchGroup()
        for rider in riders {
            group.enter()
            Thread {
                defer { group.leave() }
                var i = 0
                while !stop.load(ordering: .relaxed) {
                    i += 1
                    do {
                        let made = try store.create(Stores.booking(for: rider, at: i), idempotencyKey: nil)
                        let count = acknowledged.withLock { ids -> Int in
                            ids.append(made.booking.id)
                            return ids.count
                        }
                        goal.withLock { g in
                            if let reached = g.reached, count >= g.count {
                                reached.signal()
                                g.reached = nil
                            }
                        }
                    } catch let error as StoreError where error.code == .unavailable {
                        unavailable.add(1, ordering: .relaxed)
                    } catch {
                        otherFailures.withLock { $0.append("\(error)") }
                    }
                }
            }.start()
        }
        func waitForMoreAcknowledged(than count: Int) {
            let reached = DispatchSemaphore(value: 0)
            goal.withLock { $0 = (count + 1, reached) }
            // The load runs on: the next acknowledgement past `count` signals, however late it comes.
            _ = reached.wait(timeout: .now() + 60)
        }
        waitForMoreAcknowledged(than: 200)
        try server.stopServer()
        let beforeRestart = acknowledged.withLock { $0.count }
        try server.start()
        waitForMoreAcknowledged(than: beforeRestart + 200)
        stop.store(true, ordering: .relaxed)
        group.wait()
        #expect(otherFailures.withLock { $0 } == [])
        #expect(unavailable.load(ordering: .relaxed) > 0, "the stopped server should have refused some bookings")
        let ids = acknowledged.withLock { $0 }
        #expect(ids.count > beforeRestart + 200, "the same store took bookings again after the restart")
        // Every acknowledged booking is there, read by a fresh store.
        let reader = try PostgresStore(.init(conninfo: server.conninfo, connections: 1))
        defer { reader.close() }
        var missing = 0
        for id in ids where try reader.booking(id) == nil { missing += 1 }
        #expect(missing == 0)
        let seen = changes.withLock { $0 }
        #expect(seen.first == "database_unavailable" && seen.last == "ok", "\(seen)")
        #expect(zip(seen, seen.dropFirst()).allSatisfy { $0 != $1 }, "each change once: \(seen)")
    }

    @Test func whileTheServerIsAwayCallsSayUnavailableAndHealthReturnsWithoutARequest() throws {
        let server = try PostgresTestServer()
        defer { server.stop() }
        let returned = DispatchSemaphore(value: 0)
        let store = try PostgresStore(.init(conninfo: server.conninfo, connections: 2, probeIntervalMilliseconds: 50))
        defer { store.close() }
        let s = try Stores(postgres: store)
        let (rider, _) = try s.makeRider()
        try server.stopServer()
        let write = #expect(throws: StoreError.self) {
            try store.create(Stores.booking(for: rider), idempotencyKey: nil)
        }
        #expect(write?.code == .unavailable)
        let read = #expect(throws: StoreError.self) { try store.booking(.random()) }
        #expect(read?.code == .unavailable)
        #expect(store.health.snapshot.problem == .unavailable)
        #expect(store.health.snapshot.detail.contains("reconnects by itself"))
        #expect(!store.health.snapshot.detail.contains(server.password), "the detail never holds the password")
        store.health.observe { snapshot in if snapshot.isHealthy { returned.signal() } }
        try server.start()
        // No request is made: the probe finds the server back.
        #expect(returned.wait(timeout: .now() + 30) == .success)
        #expect(try store.create(Stores.booking(for: rider), idempotencyKey: nil).created)
    }

    @Test func aListOfHostsFindsTheWritablePrimary() throws {
        let primary = try PostgresTestServer()
        defer { primary.stop() }
        let standIn = try PostgresTestServer()
        defer { standIn.stop() }
        // The second server stands in for a standby: it accepts connections but reports itself read-only.
        try standIn.psql("ALTER SYSTEM SET default_transaction_read_only = on")
        try standIn.psql("SELECT pg_reload_conf()")
        func hosts(_ list: [String]) -> String {
            "host=\(list.joined(separator: ",")) port=\(list.map { _ in "5432" }.joined(separator: ",")) user=postgres "
                + "dbname=postgres password=\(primary.password) connect_timeout=3 target_session_attrs=read-write"
        }
        let dead = "/nonexistent-\(getpid())"
        for list in [[dead, primary.directory.path], [standIn.directory.path, primary.directory.path]] {
            let store = try PostgresStore(.init(conninfo: hosts(list), connections: 1))
            defer { store.close() }
            let s = try Stores(postgres: store)
            let (rider, _) = try s.makeRider()
            #expect(try store.create(Stores.booking(for: rider), idempotencyKey: nil).created)
        }
        let c = try PostgresConnection(conninfo: primary.conninfo)
        #expect(try c.query("SELECT count(*) FROM bookings").first?.int(0) == 2)
    }
}
