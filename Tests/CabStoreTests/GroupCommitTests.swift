import CabCore
import Foundation
import Testing

@testable import CabStore

@Suite struct GroupCommitTests {
    @Test func manyConcurrentWritersAreAllCommittedInFewerTransactions() throws {
        let f = try StoreFixture()
        let riders = try (0..<8).map { try f.makeRider("r\($0)") }
        let store = f.store
        let start = f.clockStart
        let before = store.writeStatistics
        let threads = 64
        let perThread = 20
        let failures = Outcomes()
        let created = BookingList()
        runOnThreads(threads) { t in
            let rider = riders[t % riders.count]
            for i in 0..<perThread {
                // Every 7th write names a rider that does not exist: it fails alone, its batch still commits.
                let doomed = (t * perThread + i) % 7 == 0
                let booking = StoreFixture.newBooking(
                    for: doomed ? RiderID.random() : rider, at: start.adding(seconds: t * perThread + i))
                do {
                    let b = try store.create(booking, idempotencyKey: IdempotencyKey(key: "t\(t)-\(i)", requestFingerprint: "f"))
                    created.append(b.booking)
                    let step = try store.apply(
                        .dispatch, to: booking.id, by: .system, at: booking.createdAt.adding(seconds: 1), tariff: .standard)
                    #expect(step.booking.status == .dispatching)
                } catch {
                    failures.record(loss: nil)
                    #expect(doomed, "unexpected failure: \(error)")
                }
            }
        }
        let doomedCount = (0..<(threads * perThread)).filter { $0 % 7 == 0 }.count
        #expect(failures.snapshot.1.count == doomedCount)
        let all = created.items
        #expect(all.count == threads * perThread - doomedCount)
        #expect(try f.count("bookings") == all.count)
        #expect(try f.count("idempotency_keys") == all.count)
        for booking in all {
            let history = try store.history(booking.id)
            #expect(history.map(\.event) == [.book, .dispatch])
            #expect(history.map(\.to) == [.requested, .dispatching])
        }
        let after = store.writeStatistics
        let writes = after.writes - before.writes
        let batches = after.batches - before.batches
        #expect(writes == threads * perThread + all.count)  // every create (failed or not) and every dispatch
        #expect(batches < writes)  // concurrent writers shared transactions
    }

    @Test func closingCheckpointsTheWALIntoTheFile() throws {
        let f = try StoreFixture()
        let rider = try f.makeRider()
        for i in 0..<50 { _ = try f.store.create(f.newBooking(for: rider, at: i), idempotencyKey: nil) }
        let wal = f.path + "-wal"
        #expect(try (FileManager.default.attributesOfItem(atPath: wal)[.size] as? Int ?? 0) > 0)
        f.store.close()
        #expect(try (FileManager.default.attributesOfItem(atPath: wal)[.size] as? Int ?? -1) == 0)
        try f.reopen()
        #expect(try f.store.bookings(BookingQuery(riderID: rider, limit: 100)).items.count == 50)
    }

    @Test func writesAfterCloseAreRefused() throws {
        let f = try StoreFixture()
        let rider = try f.makeRider()
        f.store.close()
        let error = #expect(throws: StoreError.self) { try f.store.create(f.newBooking(for: rider), idempotencyKey: nil) }
        #expect(error?.code == .closed)
    }
}

/// Runs `body(i)` for i in 0..<count, each on a thread of its own (not the dispatch pool, which caps
/// concurrency at the number of cores), and returns when all are done.
func runOnThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
    let group = DispatchGroup()
    for i in 0..<count {
        group.enter()
        let thread = Thread {
            body(i)
            group.leave()
        }
        thread.start()
    }
    group.wait()
}

/// Bookings appended from many threads.
final class BookingList: @unchecked Sendable {
    // @unchecked Sendable: `storage` is only touched under `lock`.
    private let lock = NSLock()
    private var storage: [Booking] = []

    func append(_ b: Booking) { lock.withLock { storage.append(b) } }
    var items: [Booking] { lock.withLock { storage } }
}
