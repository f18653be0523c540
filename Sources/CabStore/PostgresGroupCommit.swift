import CabPostgres
import Foundation

/// Group commit on PostgreSQL: a few writer threads take the writes queued by many callers and commit them
/// together, as `GroupCommitWriter` does on SQLite.
///
/// Each writer takes up to `maximumBatch` queued jobs and runs them in one transaction, then `COMMIT`s once. When
/// a job throws, the batch is rolled back and runs again with each job inside its own `SAVEPOINT`, so the job
/// that throws is rolled back alone and gets its error (jobs only touch the database, so running one again is
/// safe). PostgreSQL
/// answers the `COMMIT` after its WAL record is flushed (`synchronous_commit=on`), and only then is any caller of
/// the batch answered: one flush pays for the batch, and nothing is acknowledged before it is durable. Several
/// writers run batches side by side on their own connections, so one batch waiting for a row lock another node
/// holds does not stop the rest.
///
/// A batch that loses to a concurrent transaction (serialization failure `40001`, deadlock `40P01`) runs again
/// whole, up to `attempts` times; a batch whose connection was found dead before its `COMMIT` was sent runs again
/// once on a fresh connection (nothing of it was kept). A connection lost during the `COMMIT` leaves the outcome
/// unknown: every caller of that batch gets `.unavailable` (an idempotency key makes the retry safe).
final class PostgresGroupCommit: @unchecked Sendable {
    // @unchecked Sendable: `queue`, `closed`, `running` and the statistics are guarded by `condition`; jobs are
    // touched by one writer thread at a time (the one that dequeued them).
    private let condition = NSCondition()
    private var queue: [any PostgresWriteJob] = []
    private var closed = false
    private var running = 0
    private(set) var batches = 0
    private(set) var jobs = 0
    private var retried = 0
    private let pool: PostgresPool
    private let maximumBatch: Int
    private let attempts: Int
    private let waitsForFlush: Bool

    /// Starts `writers` threads committing batches of at most `maximumBatch` jobs on connections of `pool`.
    /// `waitsForFlush` false: each batch commits with `synchronous_commit` off, so its callers are answered before
    /// its WAL reaches the disk (within `wal_writer_delay`, 200 ms by default, later; a server crash before that
    /// loses the batch, a clean stop does not). Only for writes whose loss in a crash costs nothing a user keeps.
    init(pool: PostgresPool, writers: Int, maximumBatch: Int, attempts: Int = 5, waitsForFlush: Bool = true) {
        precondition(writers >= 1 && maximumBatch >= 1 && attempts >= 1, "at least one writer, job and attempt")
        self.pool = pool
        self.maximumBatch = maximumBatch
        self.attempts = attempts
        self.waitsForFlush = waitsForFlush
        running = writers
        for n in 0..<writers {
            let thread = Thread { [self] in run() }
            thread.name = "cab-pg-writer-\(n)"
            thread.start()
        }
    }

    /// Runs `body` within the next batch; returns after the batch's commit is durable.
    func write<T: Sendable>(_ body: @escaping (PostgresConnection) throws -> T) throws -> T {
        let answer = PostgresAnswer<T>()
        submit(body) { result in
            answer.result = result
            answer.done.signal()
        }
        answer.done.wait()
        // `submit`'s completion sets `result` before signalling `done`; the semaphore orders the two.
        guard let result = answer.result else { preconditionFailure("a writer finished a job without a result") }
        return try result.get()
    }

    /// Runs `body` within the next batch without blocking: `completion` gets the result on a writer thread once
    /// the commit is durable (or failed). It must be quick and must not write to the store synchronously.
    func submit<T: Sendable>(
        _ body: @escaping (PostgresConnection) throws -> T,
        completion: @escaping @Sendable (Result<T, any Error>) -> Void
    ) {
        condition.lock()
        guard !closed else {
            condition.unlock()
            completion(.failure(StoreError(.closed, "The store is closed.")))
            return
        }
        queue.append(PostgresJob(body, completion: completion))
        condition.signal()
        condition.unlock()
    }

    /// Commits what is queued, then stops the writers (waiting for them); later writes throw `.closed`.
    func close() {
        condition.lock()
        closed = true
        condition.broadcast()
        while running > 0 { condition.wait() }
        condition.unlock()
    }

    /// Attempts of a batch lost to a concurrent transaction (a deadlock or a serialization failure) and run again.
    /// A lock order kept by every job (docs/dispatch-ownership.md, rule 16) keeps this at zero.
    var retriedBatches: Int {
        condition.lock()
        defer { condition.unlock() }
        return retried
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
            while queue.isEmpty && !closed { condition.wait() }
            if queue.isEmpty {
                running -= 1
                condition.broadcast()
                condition.unlock()
                return
            }
            let batch = Array(queue.prefix(maximumBatch))
            queue.removeFirst(batch.count)
            condition.unlock()
            commit(batch)
        }
    }

    /// A job of a batch run without savepoints threw: the batch was rolled back and runs again with them.
    private struct JobFailed: Error {}

    private func commit(_ batch: [any PostgresWriteJob]) {
        var attempt = 1
        var reconnected = false
        // First without savepoints (two round trips less per job); a job that throws sends the batch round
        // again with one savepoint per job, so that only that job is rolled back.
        var savepoints = false
        while true {
            var commitSent = false
            do {
                try pool.withConnection { c in
                    try runOnce(batch, savepoints: savepoints, on: c, commitSent: &commitSent)
                }
                condition.lock()  // counted before any caller wakes, so a caller sees its own write counted
                batches += 1
                jobs += batch.count
                condition.unlock()
                for job in batch { job.finish(failure: nil) }
                return
            } catch is JobFailed {
                if batch.count == 1 {
                    batch[0].finish(failure: nil)  // its error is its result; nothing was kept
                    return
                }
                savepoints = true
            } catch let error as PostgresError where !commitSent && error.isRetryableTransaction && attempt < attempts {
                // A moment's pause (a few ms, longer each time, randomised) lets the transaction that won take the
                // locks it was waiting for before this batch asks for them again; straight away, the two can meet
                // in the same deadlock again.
                usleep(UInt32.random(in: 1_000...4_000) * UInt32(attempt))
                attempt += 1
                condition.lock()
                retried += 1
                condition.unlock()
            } catch let error as PostgresError where !commitSent && error.isUnavailable && !reconnected {
                reconnected = true  // a connection left dead by a server restart: once more on a fresh one
            } catch {
                let failure = StoreError.translatingPostgres(error)
                for job in batch { job.finish(failure: failure) }
                return
            }
        }
    }

    /// One attempt: `BEGIN`, every job (each in its savepoint when `savepoints`), `COMMIT`. With savepoints a
    /// job's own failure (a constraint, a domain error) rolls back its savepoint only; without, it rolls back the
    /// attempt (`JobFailed`). A retryable or connection failure ends the attempt and is thrown (to the pool,
    /// which drops a dead connection).
    private func runOnce(
        _ batch: [any PostgresWriteJob], savepoints: Bool, on c: PostgresConnection, commitSent: inout Bool
    ) throws {
        do {
            try c.execute(waitsForFlush ? "BEGIN" : "BEGIN; SET LOCAL synchronous_commit TO off")
            for job in batch {
                if savepoints { try c.execute("SAVEPOINT cab_job") }
                if let error = job.run(c) {
                    if let pg = error as? PostgresError, pg.isRetryableTransaction || pg.isUnavailable { throw pg }
                    guard savepoints else { throw JobFailed() }
                    try c.execute("ROLLBACK TO SAVEPOINT cab_job")
                }
                if savepoints { try c.execute("RELEASE SAVEPOINT cab_job") }
            }
        } catch {
            if c.isConnected { _ = try? c.execute("ROLLBACK") }
            throw error
        }
        commitSent = true
        try c.execute("COMMIT")
    }
}

/// A queued write, type-erased for the queue.
private protocol PostgresWriteJob: AnyObject {
    /// Runs the closure; returns the error it threw (its result is kept for `finish`).
    func run(_ connection: PostgresConnection) -> (any Error)?
    /// Hands the result to the completion; a non-nil `failure` replaces it.
    func finish(failure: (any Error)?)
}

/// A blocked `write`'s answer. `@unchecked Sendable`: `result` is written before `done.signal()` and read only
/// after `done.wait()`.
private final class PostgresAnswer<T: Sendable>: @unchecked Sendable {
    var result: Result<T, any Error>?
    let done = DispatchSemaphore(value: 0)
}

private final class PostgresJob<T: Sendable>: PostgresWriteJob, @unchecked Sendable {
    // @unchecked Sendable: `body` and `result` are touched only by the one writer thread that dequeued the job.
    let body: (PostgresConnection) throws -> T
    var result: Result<T, any Error>?
    let completion: @Sendable (Result<T, any Error>) -> Void

    init(
        _ body: @escaping (PostgresConnection) throws -> T,
        completion: @escaping @Sendable (Result<T, any Error>) -> Void
    ) {
        self.body = body
        self.completion = completion
    }

    func run(_ connection: PostgresConnection) -> (any Error)? {
        do {
            result = .success(try body(connection))
            return nil
        } catch {
            result = .failure(StoreError.translatingPostgres(error))
            return error
        }
    }

    func finish(failure: (any Error)?) {
        if let failure { result = .failure(failure) }
        guard let result else { preconditionFailure("a writer finished a job without a result") }
        completion(result)
    }
}
