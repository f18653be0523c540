import CabCore
import Foundation
import Synchronization
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
                    let b = try store.create(
                        booking, idempotencyKey: IdempotencyKey(key: "t\(t)-\(i)", requestFingerprint: "f"))
                    created.append(b.booking)
                    let step = try store.apply(
                        .dispatch, to: booking.id, by: .system, at: booking.createdAt.adding(seconds: 1),
                        tariff: .standard)
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

    /// Under a steady stream of commits the WAL still restarts from the top: the checkpointer trails by a few
    /// batches, and past the frame limit the writer waits for it to catch up. Without that the WAL would grow by
    /// every commit (here to about 80 MB).
    @Test func theWALStaysBoundedUnderSteadyCommits() throws {
        let f = try StoreFixture()
        let rider = try f.makeRider()
        f.store.close()
        let limit = 1_024
        let store = try SQLiteStore(path: f.path, configuration: .init(walFrameLimit: limit))
        defer { store.close() }
        let wal = f.path + "-wal"
        var largest = 0
        for i in 0..<2_500 {
            _ = try store.create(f.newBooking(for: rider, at: i), idempotencyKey: nil)
            if i % 50 == 0 {
                largest = max(largest, try FileManager.default.attributesOfItem(atPath: wal)[.size] as? Int ?? 0)
            }
        }
        let frameBytes = 24 + 4_096
        #expect(store.writeStatistics.batches >= 2_500)  // one commit per booking, several frames each
        #expect(largest > limit / 2 * frameBytes)
        #expect(largest < 3 * limit * frameBytes, "WAL grew to \(largest) bytes")
        #expect(try store.bookings(BookingQuery(riderID: rider, limit: 100)).items.count == 100)
    }

    @Test func writesAfterCloseAreRefused() throws {
        let f = try StoreFixture()
        let rider = try f.makeRider()
        f.store.close()
        let error = #expect(throws: StoreError.self) {
            try f.store.create(f.newBooking(for: rider), idempotencyKey: nil)
        }
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

@Suite struct AsynchronousWriteTests {
    /// `create(…, completion:)` answers each write once, after its commit: everything it reported is on disk.
    @Test func asynchronousCreatesAreAnsweredOnceAndDurable() throws {
        let f = try StoreFixture()
        let rider = try f.makeRider()
        let results = Mutex<[BookingID: Bool]>([:])
        let answers = Atomic<Int>(0)
        let done = DispatchGroup()
        let bookings = (0..<300).map { f.newBooking(for: rider, at: $0) }
        let store = f.store
        DispatchQueue.concurrentPerform(iterations: bookings.count) { i in
            done.enter()
            let key = IdempotencyKey(key: "async-\(i)", requestFingerprint: "f")
            store.create(bookings[i], idempotencyKey: key) { result in
                answers.add(1, ordering: .relaxed)
                if case .success(let creation) = result {
                    results.withLock { $0[creation.booking.id] = creation.created }
                }
                done.leave()
            }
        }
        #expect(done.wait(timeout: .now() + 60) == .success)
        #expect(answers.load(ordering: .relaxed) == bookings.count)
        #expect(results.withLock { $0.count } == bookings.count && results.withLock { $0.values.allSatisfy { $0 } })
        try f.reopen()
        for booking in bookings { #expect(try f.store.booking(booking.id)?.status == .requested) }
    }

    /// A retried key through the asynchronous path returns the first booking; a reused key for another trip fails.
    @Test func asynchronousRetriesAreIdempotent() throws {
        let f = try StoreFixture()
        let rider = try f.makeRider()
        func create(_ booking: Booking, fingerprint: String) -> Result<BookingCreation, any Error> {
            let answer = Mutex<Result<BookingCreation, any Error>?>(nil)
            let done = DispatchSemaphore(value: 0)
            f.store.create(booking, idempotencyKey: IdempotencyKey(key: "same", requestFingerprint: fingerprint)) {
                result in
                answer.withLock { $0 = result }
                done.signal()
            }
            done.wait()
            return answer.withLock { $0! }  // set before the signal
        }
        let first = f.newBooking(for: rider)
        let created = try create(first, fingerprint: "a").get()
        let retried = try create(f.newBooking(for: rider, at: 5), fingerprint: "a").get()
        #expect(created.created && !retried.created && retried.booking.id == first.id)
        #expect(throws: CoreError.self) { try create(f.newBooking(for: rider, at: 9), fingerprint: "b").get() }
        #expect(try f.count("bookings") == 1)
    }

    /// After `close()` the asynchronous path answers at once with an error instead of never.
    @Test func asynchronousWritesAfterCloseFail() throws {
        let f = try StoreFixture()
        let rider = try f.makeRider()
        f.store.close()
        let failed = Atomic<Bool>(false)
        f.store.create(f.newBooking(for: rider), idempotencyKey: nil) { result in
            if case .failure = result { failed.store(true, ordering: .relaxed) }
        }
        let answered = failed.load(ordering: .relaxed)
        #expect(answered)
    }
}
