import CabCore
import Foundation

/// Appends accepted fixes to the history store in batches on a thread of its own, off the request path.
///
/// The queue is bounded: when it is full, `enqueue` waits for room (back-pressure on the ingest requests)
/// rather than dropping fixes the server has acknowledged. `close()` writes everything queued before it returns,
/// so a clean shutdown loses nothing; a crash loses what was queued and not yet written (at most `capacity`
/// records, normally well under a second of fixes).
public final class LocationHistoryWriter: @unchecked Sendable {
    // @unchecked Sendable: `queue`, `writing`, `stopping` and `finished` are only touched while holding `condition`.
    private let repository: any LocationHistoryRepository
    private let capacity: Int
    private let batchSize: Int
    private let condition = NSCondition()
    private var queue: [DriverLocationRecord] = []
    private var head = 0
    private var writing = false
    private var stopping = false
    private var finished = false
    private let onError: @Sendable (any Error, Int) -> Void
    private let onWritten: @Sendable (Int) -> Void

    /// Starts the writer thread. `onError` hears about a batch the store refused (and its size; those records
    /// are lost), `onWritten` about each batch written.
    public init(
        repository: any LocationHistoryRepository, capacity: Int = 100_000, batchSize: Int = 2_000,
        onError: @escaping @Sendable (any Error, Int) -> Void = { _, _ in },
        onWritten: @escaping @Sendable (Int) -> Void = { _ in }
    ) {
        precondition(capacity > 0 && batchSize > 0, "the history queue needs room")
        self.repository = repository
        self.capacity = capacity
        self.batchSize = batchSize
        self.onError = onError
        self.onWritten = onWritten
        let thread = Thread { [self] in run() }
        thread.name = "swiftcab.history"
        thread.start()
    }

    /// Queues `records` for writing; waits while the queue is full. Ignored after `close()`.
    public func enqueue(_ records: [DriverLocationRecord]) {
        guard !records.isEmpty else { return }
        condition.lock()
        defer { condition.unlock() }
        var rest = records[...]
        while !rest.isEmpty && !stopping {
            let room = capacity - (queue.count - head)
            if room <= 0 {
                condition.wait()
                continue
            }
            queue.append(contentsOf: rest.prefix(room))
            rest = rest.dropFirst(room)
            condition.broadcast()
        }
    }

    /// Records waiting to be written.
    public var queuedCount: Int {
        condition.lock()
        defer { condition.unlock() }
        return queue.count - head
    }

    /// Waits until everything queued so far is written (tests, and readers that need their own writes).
    public func flush() {
        condition.lock()
        defer { condition.unlock() }
        while (queue.count > head || writing) && !finished { condition.wait() }
    }

    /// Writes what is queued, stops the thread and returns; later `enqueue` calls are ignored.
    public func close() {
        condition.lock()
        stopping = true
        condition.broadcast()
        while !finished { condition.wait() }
        condition.unlock()
    }

    private func run() {
        while true {
            condition.lock()
            while queue.count == head && !stopping { condition.wait() }
            if queue.count == head && stopping {
                finished = true
                condition.broadcast()
                condition.unlock()
                return
            }
            let end = min(queue.count, head + batchSize)
            let batch = Array(queue[head..<end])
            head = end
            if head == queue.count {
                queue.removeAll(keepingCapacity: queue.capacity <= 4 * batchSize)
                head = 0
            } else if head >= batchSize * 8 {
                queue.removeFirst(head)
                head = 0
            }
            writing = true
            condition.broadcast()  // room for waiting producers
            condition.unlock()

            do {
                _ = try repository.append(batch)
                onWritten(batch.count)
            } catch {
                onError(error, batch.count)
            }

            condition.lock()
            writing = false
            condition.broadcast()
            condition.unlock()
        }
    }
}
