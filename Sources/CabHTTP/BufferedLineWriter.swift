import Foundation

/// Writes log lines to a file descriptor in batches from a thread of its own, so a request pays for appending its
/// access-log line to a buffer, not for a `write(2)` (one syscall per request was 3-4 % of the server's CPU under
/// load). Lines reach the descriptor within `flushInterval`, or sooner when a batch fills; `close()` writes what
/// is left. Bounded: past `capacityBytes` waiting, new lines are dropped and counted (`droppedLines`).
public final class BufferedLineWriter: @unchecked Sendable {
    // @unchecked Sendable: `pending`, `dropped` and `closed` are guarded by `condition`; `descriptor` is immutable.
    private let descriptor: Int32
    private let flushInterval: Double
    private let batchBytes: Int
    private let capacityBytes: Int
    private let condition = NSCondition()
    private var pending: [UInt8] = []
    private var dropped = 0
    private var closed = false
    private var finished = false

    /// Starts the writing thread for `descriptor` (2: standard error).
    public init(
        descriptor: Int32 = 2, flushInterval: Duration = .milliseconds(100), batchBytes: Int = 64 * 1024,
        capacityBytes: Int = 8 << 20
    ) {
        self.descriptor = descriptor
        self.flushInterval =
            Double(flushInterval.components.seconds) + Double(flushInterval.components.attoseconds) * 1e-18
        self.batchBytes = batchBytes
        self.capacityBytes = capacityBytes
        let thread = Thread { [self] in run() }
        thread.name = "cab-log-writer"
        thread.start()
    }

    /// Queues `line` and a newline.
    public func write(_ line: String) {
        condition.lock()
        defer { condition.unlock() }
        guard !closed, pending.count + line.utf8.count < capacityBytes else {
            dropped += 1
            return
        }
        pending.append(contentsOf: line.utf8)
        pending.append(0x0A)
        if pending.count >= batchBytes { condition.signal() }
    }

    /// Lines dropped because the buffer was full or the writer closed.
    public var droppedLines: Int {
        condition.lock()
        defer { condition.unlock() }
        return dropped
    }

    /// Writes everything queued, stops the thread and drops later lines. Idempotent.
    public func close() {
        condition.lock()
        closed = true
        condition.broadcast()
        while !finished { condition.wait() }
        condition.unlock()
    }

    private func run() {
        condition.lock()
        while true {
            if pending.count < batchBytes && !closed {
                _ = condition.wait(until: Date().addingTimeInterval(flushInterval))
            }
            let batch = pending
            pending.removeAll(keepingCapacity: true)
            let last = closed
            condition.unlock()
            writeAll(batch)
            condition.lock()
            if last && pending.isEmpty { break }
        }
        finished = true
        condition.broadcast()
        condition.unlock()
    }

    private func writeAll(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let n = Foundation.write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if n < 0 && errno == EINTR { continue }
                guard n > 0 else { return }  // the log is gone (closed pipe): nothing left to do with these lines
                offset += n
            }
        }
    }
}
