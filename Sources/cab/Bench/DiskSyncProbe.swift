import Foundation

/// The disk's own durable-write latency, as a baseline for the bookings' p99: writes 8 KiB and `fdatasync`s it in a
/// loop for a while, in the directory the store uses, before any load runs. A booking's 201 waits for one such
/// fsync of the WAL, so the disk's tail is a floor under the bookings' tail.
struct DiskSyncProbe {
    struct Result {
        var syncs: Int
        var p50Milliseconds: Double
        var p99Milliseconds: Double
        var maxMilliseconds: Double
    }

    /// Measures for `seconds` in `directory`; nil when the probe file cannot be written.
    static func measure(in directory: String, seconds: Double = 2) -> Result? {
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
        while monotonicSeconds() < end {
            let written = block.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, off_t((round % 256) * block.count)) }
            guard written == block.count else { return nil }
            let start = monotonicSeconds()
            guard fdatasync(descriptor) == 0 else { return nil }
            samples.add((monotonicSeconds() - start) * 1000)
            round += 1
        }
        guard let p50 = samples.percentile(50), let p99 = samples.percentile(99), let max = samples.percentile(100) else {
            return nil
        }
        return Result(syncs: round, p50Milliseconds: p50, p99Milliseconds: p99, maxMilliseconds: max)
    }
}
