import CabLoopback
import Foundation

/// The disk's own durable-write latency, as a baseline for the bookings' p99: writes 8 KiB and `fdatasync`s it in a
/// loop for a while, in the directory the store uses. A booking's 201 waits for one such fsync of the WAL, so the
/// disk's tail is a floor under the bookings' tail. Run before any load (back to back), and beside the bookings
/// load (`during`, paced), where a stall of the disk itself shows as a slow probe sync in the same seconds.
package struct DiskSyncProbe {
    package struct Result {
        package var syncs: Int
        package var p50Milliseconds: Double
        package var p99Milliseconds: Double
        package var maxMilliseconds: Double
        /// Syncs slower than 20 ms (the bookings' p99 target).
        package var over20Milliseconds: Int
    }

    /// Measures for `seconds` in `directory`, one sync after another, or one per `pause` seconds; nil when the
    /// probe file cannot be written.
    package static func measure(in directory: String, seconds: Double = 2, pause: Double = 0) -> Result? {
        let path = directory + "/fsync-probe-\(getpid()).bin"
        let descriptor = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { return nil }
        defer {
            close(descriptor)
            unlink(path)
        }
        let block = [UInt8](repeating: 0x5A, count: 8 * 1024)
        var samples = LatencySamples()
        let end = monotonicSeconds() + seconds
        var round = 0
        var slow = 0
        while monotonicSeconds() < end {
            let written = block.withUnsafeBytes {
                pwrite(descriptor, $0.baseAddress, $0.count, off_t((round % 256) * block.count))
            }
            guard written == block.count else { return nil }
            let start = monotonicSeconds()
            guard fdatasync(descriptor) == 0 else { return nil }
            let milliseconds = (monotonicSeconds() - start) * 1000
            samples.add(milliseconds)
            if milliseconds > 20 { slow += 1 }
            round += 1
            if pause > 0 { usleep(useconds_t(pause * 1_000_000)) }
        }
        guard let p50 = samples.percentile(50), let p99 = samples.percentile(99), let max = samples.percentile(100)
        else {
            return nil
        }
        return Result(
            syncs: round, p50Milliseconds: p50, p99Milliseconds: p99, maxMilliseconds: max, over20Milliseconds: slow)
    }

    /// `measure` on a thread of its own, paced at one sync per 10 ms, while the caller runs a load; `result()`
    /// waits for it.
    package final class During: @unchecked Sendable {
        // @unchecked Sendable: `outcome` is written by the thread before `done.signal()`, read after `done.wait()`.
        private var outcome: Result?
        private let done = DispatchSemaphore(value: 0)

        package init(directory: String, seconds: Double) {
            let thread = Thread { [self] in
                outcome = DiskSyncProbe.measure(in: directory, seconds: seconds, pause: 0.01)
                done.signal()
            }
            thread.start()
        }

        package func result() -> Result? {
            done.wait()
            return outcome
        }
    }
}
