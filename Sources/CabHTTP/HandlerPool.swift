import Foundation

/// A fixed set of threads that run request handlers, fed by a bounded queue, so that libmicrohttpd's epoll
/// threads never run a handler that may block (a durable write, a lock, a large read).
///
/// `submit` refuses a job when `queueCapacity` jobs already wait (the server then answers 503 at once).
/// Continuations (the rest of a request already admitted, such as a deferred response completed by a group
/// commit) are never refused: they go first, and there are at most as many as parked requests, which the
/// server's connection limit bounds.
///
/// `@unchecked Sendable`: `condition` protects every stored `var`.
final class HandlerPool: @unchecked Sendable {
    typealias Job = @Sendable () -> Void

    /// Threads running handlers.
    let threadCount: Int
    /// Jobs that may wait for a thread.
    let queueCapacity: Int
    private let condition = NSCondition()
    private var jobs: [Job?]
    private var head = 0
    private var count = 0
    private var continuations: [Job] = []
    private var stopping = false
    private var busy = 0

    /// How much lower the threads' scheduling priority is than the epoll threads' (a `nice` increment).
    let niceness: Int

    /// A pool of `threads` threads (started by `start()`) and room for `queueCapacity` waiting jobs, scheduled
    /// `niceness` below the rest of the process.
    init(threads: Int, queueCapacity: Int, niceness: Int = 0) {
        precondition(threads > 0 && queueCapacity > 0, "a handler pool needs threads and room for jobs")
        threadCount = threads
        self.niceness = niceness
        self.queueCapacity = queueCapacity
        jobs = Array(repeating: nil, count: queueCapacity)
    }

    /// Starts the threads (named `http-handler-N`); call once.
    func start() {
        for index in 0..<threadCount {
            let thread = Thread { [self] in
                // Linux keeps a nice value per thread, and `setpriority(PRIO_PROCESS, 0, n)` sets the calling
                // thread's: with handlers below the epoll threads, a core busy with handlers runs the event loop
                // first.
                #if os(Linux)
                    if niceness > 0 { _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, Int32(niceness)) }
                #endif
                work()
            }
            thread.name = "http-handler-\(index)"
            thread.stackSize = 1 << 20
            thread.start()
        }
    }

    /// Queues a new request's job; false when the queue is full or the pool stopped.
    func submit(_ job: @escaping Job) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        guard !stopping, count < queueCapacity else { return false }
        jobs[(head + count) % queueCapacity] = job
        count += 1
        condition.signal()
        return true
    }

    /// Queues the rest of an admitted request, ahead of new requests; after `stop()` it runs on a global queue
    /// instead, so its effects are never lost.
    func submitContinuation(_ job: @escaping Job) {
        condition.lock()
        if stopping {
            condition.unlock()
            DispatchQueue.global().async(execute: job)
            return
        }
        continuations.append(job)
        condition.signal()
        condition.unlock()
    }

    /// Jobs waiting for a thread and threads running one, for the 503's detail and tests.
    var load: (waiting: Int, running: Int) {
        condition.lock()
        defer { condition.unlock() }
        return (count + continuations.count, busy)
    }

    /// Stops taking jobs: queued new requests are dropped (returned, not run; their connections are answered by
    /// the server), queued continuations still run, running jobs finish; the threads then end.
    @discardableResult
    func stop() -> Int {
        condition.lock()
        defer { condition.unlock() }
        stopping = true
        let dropped = count
        for offset in 0..<count { jobs[(head + offset) % queueCapacity] = nil }
        count = 0
        head = 0
        condition.broadcast()
        return dropped
    }

    private func work() {
        while true {
            condition.lock()
            while continuations.isEmpty && count == 0 && !stopping { condition.wait() }
            let job: Job
            if !continuations.isEmpty {
                job = continuations.removeFirst()
            } else if count > 0, let next = jobs[head] {
                jobs[head] = nil
                head = (head + 1) % queueCapacity
                count -= 1
                job = next
            } else {
                condition.unlock()
                return  // stopping, nothing left
            }
            busy += 1
            condition.unlock()
            job()
            condition.lock()
            busy -= 1
            condition.unlock()
        }
    }
}
