import CabCore
import Foundation

/// Appends accepted fixes to the history store in batches on a thread of its own, off the request path.
///
/// The queue is bounded: when it is full, `enqueue` waits for room (back-pressure on the ingest requests)
/// rather than dropping fixes the server has acknowledged. A caller that must not wait (a request on an event-loop
/// thread) reserves room first with `reserveRoom(for:)` and goes elsewhere when there is none; enqueueing into a
/// reserved room never waits. `close()` writes everything queued before it returns,
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
    /// Room promised to `reserveRoom(for:)` callers and not yet filled: other producers see that much less.
    private var reserved = 0
    /// Callers waiting in `flush()`: the writer does not linger while there are any.
    private var flushWaiters = 0
    private let lingerSeconds: Double
    private let onError: @Sendable (any Error, Int) -> Void
    private let onWritten: @Sendable (Int) -> Void

    /// Starts the writer thread. `onError` hears about a batch the store refused (and its size; those records
    /// are lost), `onWritten` about each batch written. With `lingerMilliseconds`, the writer waits up to that
    /// long for a full batch before writing a partial one (fewer, larger durable commits under load); `flush()`
    /// and `close()` cut the wait short.
    public init(
        repository: any LocationHistoryRepository, capacity: Int = 100_000, batchSize: Int = 2_000,
        lingerMilliseconds: Int = 0,
        onError: @escaping @Sendable (any Error, Int) -> Void = { _, _ in },
        onWritten: @escaping @Sendable (Int) -> Void = { _ in }
    ) {
        precondition(capacity > 0 && batchSize > 0, "the history queue needs room")
        self.repository = repository
        self.capacity = capacity
        self.batchSize = batchSize
        self.onError = onError
        self.onWritten = onWritten
        lingerSeconds = Double(max(0, lingerMilliseconds)) / 1000
        let thread = Thread { [self] in run() }
        thread.name = "swiftcab.history"
        thread.start()
    }

    /// Room for `count` records held for one caller until it calls `enqueue(_:into:)` or `release(_:)`, so that
    /// enqueueing them cannot wait; nil (nothing held) when the queue has less room. Never waits.
    public func reserveRoom(for count: Int) -> HistoryRoom? {
        condition.lock()
        defer { condition.unlock() }
        guard !stopping, capacity - (queue.count - head) - reserved >= count else { return nil }
        reserved += count
        return HistoryRoom(count: count)
    }

    /// Gives back room held by `reserveRoom(for:)` and not used.
    public func release(_ room: HistoryRoom) {
        condition.lock()
        reserved -= room.count
        condition.broadcast()  // producers waiting for room
        condition.unlock()
    }

    /// Queues `records` for writing; waits while the queue is full, except for records that fit in `room` (held
    /// by `reserveRoom(for:)`, and given back here whether used or not). Ignored after `close()`.
    public func enqueue(_ records: [DriverLocationRecord], into room: HistoryRoom? = nil) {
        let held = room?.count ?? 0
        guard !records.isEmpty else {
            if let room { release(room) }
            return
        }
        precondition(records.count <= held || room == nil, "more records than the room reserved for them")
        condition.lock()
        defer { condition.unlock() }
        reserved -= held
        var rest = records[...]
        while !rest.isEmpty && !stopping {
            let room = capacity - (queue.count - head) - reserved
            if room <= 0 {
                condition.wait()
                continue
            }
            let before = queue.count - head
            queue.append(contentsOf: rest.prefix(room))
            rest = rest.dropFirst(room)
            // Wake the writer when it has work it waits for: a first record, or a full batch while it lingers.
            if before == 0 || (before < batchSize && queue.count - head >= batchSize) { condition.broadcast() }
        }
        if held > records.count { condition.broadcast() }  // room given back
    }

    /// Waits until everything queued so far is written (tests, and readers that need their own writes).
    public func flush() {
        condition.lock()
        defer { condition.unlock() }
        flushWaiters += 1
        condition.broadcast()  // a lingering writer writes now
        while (queue.count > head || writing) && !finished { condition.wait() }
        flushWaiters -= 1
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
            if lingerSeconds > 0 {
                let deadline = Date(timeIntervalSinceNow: lingerSeconds)
                while !stopping && flushWaiters == 0 && queue.count - head < batchSize {
                    if !condition.wait(until: deadline) { break }
                }
            }
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

/// Room in the history queue held for one caller (`LocationHistoryWriter.reserveRoom(for:)`); use it once.
public struct HistoryRoom: Sendable {
    /// Records it holds room for.
    public let count: Int
}
