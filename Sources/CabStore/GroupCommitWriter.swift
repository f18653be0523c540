import CabSQLite
import Foundation

/// The one writer: a thread that owns the write connection and commits concurrent requests together.
///
/// Callers hand in a closure and block. The thread takes everything queued (up to `maximumBatch`), runs each
/// closure inside `BEGIN IMMEDIATE` in its own `SAVEPOINT` (a closure that throws is rolled back alone and gets
/// its error), then `COMMIT`s once. With `synchronous=FULL` the commit returns after the WAL is fsynced, and only
/// then is every caller of the batch woken: one fsync pays for the whole batch, and nothing is acknowledged
/// before it is on disk. While a batch commits, new requests queue up and form the next batch.
final class GroupCommitWriter: @unchecked Sendable {
    // @unchecked Sendable: `connection` is touched only by the writer thread once it has started (and by `init`
    // before); `queue` and the statistics are guarded by `stop.condition`.
    private let connection: Connection
    private let stop = StopSignal()
    private var condition: NSCondition { stop.condition }
    private var queue: [any WriteJob] = []
    private let maximumBatch: Int
    private let checkpointer: Checkpointer
    /// WAL length (frames of a page each) past which the writer waits for the checkpointer to catch up between
    /// two batches, so that the next batch restarts the WAL from the top (`SQLiteStore.Configuration`).
    private let walRestartFrames: Int

    /// Statistics: batches committed and jobs in them (read under the lock).
    private(set) var batches = 0
    private(set) var jobs = 0

    /// Hears of every SQLite failure and every commit.
    private let health: StoreHealth?

    init(
        connection: Connection, maximumBatch: Int, checkpointer: Checkpointer, walFrameLimit: Int,
        health: StoreHealth? = nil
    ) {
        self.health = health
        self.connection = connection
        walRestartFrames = walFrameLimit
        self.maximumBatch = maximumBatch
        self.checkpointer = checkpointer
        let thread = Thread { [self] in run() }
        thread.name = "cab-store-writer"
        thread.start()
    }

    /// Runs `body` on the writer thread within the next batch; returns after the batch's commit is durable.
    func write<T: Sendable>(_ body: @escaping (Connection) throws -> T) throws -> T {
        let answer = Answer<T>()
        submit(body) { result in
            answer.result = result
            answer.done.signal()
        }
        answer.done.wait()
        // `submit` sets `result` before signalling `done`; the semaphore orders the two.
        guard let result = answer.result else { preconditionFailure("writer finished a job without a result") }
        return try result.get()
    }

    /// Runs `body` on the writer thread within the next batch without blocking the caller: `completion` gets the
    /// result on the writer thread once the batch's commit is durable (or failed). It must be quick and must not
    /// write to this store synchronously (the writer would wait for itself).
    func submit<T: Sendable>(
        _ body: @escaping (Connection) throws -> T, completion: @escaping @Sendable (Result<T, any Error>) -> Void
    ) {
        let job = Job(body, completion: completion)
        condition.lock()
        guard !stop.closed else {
            condition.unlock()
            completion(.failure(StoreError(.closed, "The store is closed.")))
            return
        }
        queue.append(job)
        condition.signal()
        condition.unlock()
    }

    /// Commits what is queued, then stops the thread; later writes throw `.closed`.
    func close() {
        stop.close()
        checkpointer.close()
    }

    /// (batches, jobs) committed so far.
    var statistics: (batches: Int, jobs: Int) {
        condition.lock()
        defer { condition.unlock() }
        return (batches, jobs)
    }

    private func run() {
        while true {
            condition.lock()
            while queue.isEmpty && !stop.closed { condition.wait() }
            if queue.isEmpty {
                stop.finish()
                condition.unlock()
                return
            }
            let batch = Array(queue.prefix(maximumBatch))
            queue.removeFirst(batch.count)
            condition.unlock()
            commit(batch)
        }
    }

    private func commit(_ batch: [any WriteJob]) {
        let db = connection.db
        do {
            try db.execute("BEGIN IMMEDIATE")
        } catch {
            health?.record(error)
            for job in batch { job.finish(failure: StoreError.wrapping(error)) }
            return
        }
        var applied = 0
        for job in batch {
            do {
                try connection.run("SAVEPOINT job")  // prepared once, reused for every job
                if job.run(connection) {
                    try connection.run("RELEASE job")
                    applied += 1
                } else {
                    if let failure = job.failure { health?.record(failure) }
                    try connection.run("ROLLBACK TO job")
                    try connection.run("RELEASE job")
                }
            } catch {
                health?.record(error)
                job.fail(StoreError.wrapping(error))
            }
        }
        condition.lock()  // counted before any caller wakes, so a caller sees its own write in the statistics
        batches += 1
        jobs += batch.count
        condition.unlock()
        do {
            try db.execute("COMMIT")
            if applied > 0 { health?.commitSucceeded() }
            for job in batch { job.finish(failure: nil) }
            // The checkpointer trails by a few batches. Past the limit, wait for it to copy them (a few
            // milliseconds, while new requests queue up for the next batch): that batch then restarts the WAL.
            // A checkpoint that fails loses nothing; the WAL keeps every commit.
            if checkpointer.walFrames > walRestartFrames { checkpointer.catchUp() } else { checkpointer.request() }
        } catch {
            // Nothing of the batch is on disk; tell every caller, including those whose closure succeeded.
            // After a failed COMMIT SQLite may already have rolled back; the commit error is what callers need.
            health?.record(error)
            try? db.execute("ROLLBACK")
            for job in batch { job.finish(failure: StoreError.wrapping(error)) }
        }
    }
}

/// A queued write, type-erased for the queue.
private protocol WriteJob: AnyObject {
    /// Runs the closure; false when it threw (its savepoint is then rolled back).
    func run(_ connection: Connection) -> Bool
    /// Records an error without waking the caller yet.
    func fail(_ error: any Error)
    /// The error the closure threw, if it did.
    var failure: (any Error)? { get }
    /// Hands the result to the job's completion; a non-nil `failure` replaces any result.
    func finish(failure: (any Error)?)
}

/// A blocked `write`'s answer. `@unchecked Sendable`: `result` is written before `done.signal()` and read only
/// after `done.wait()`.
private final class Answer<T: Sendable>: @unchecked Sendable {
    var result: Result<T, any Error>?
    let done = DispatchSemaphore(value: 0)
}

private final class Job<T: Sendable>: WriteJob, @unchecked Sendable {
    // @unchecked Sendable: `body` and `result` are touched only by the writer thread.
    let body: (Connection) throws -> T
    var result: Result<T, any Error>?
    /// Called once with the result, on the writer thread, after the commit (or its failure).
    let completion: @Sendable (Result<T, any Error>) -> Void

    init(_ body: @escaping (Connection) throws -> T, completion: @escaping @Sendable (Result<T, any Error>) -> Void) {
        self.body = body
        self.completion = completion
    }

    func run(_ connection: Connection) -> Bool {
        do {
            result = .success(try body(connection))
            return true
        } catch {
            result = .failure(StoreError.translating(error))
            return false
        }
    }

    func fail(_ error: any Error) { result = .failure(error) }

    var failure: (any Error)? {
        if case .failure(let error) = result { return error }
        return nil
    }

    func finish(failure: (any Error)?) {
        if let failure { result = .failure(failure) }
        guard let result else { preconditionFailure("writer finished a job without a result") }
        completion(result)
    }
}
