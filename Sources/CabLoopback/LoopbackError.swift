/// Something the loopback tools could not do (start a process, reach an endpoint, decode an answer), with what to
/// fix. The benchmarks call it `LoopbackError`.
public struct LoopbackError: Error, CustomStringConvertible {
    /// A one-line message saying what failed and what to do.
    public let message: String
    /// The `errno` value, when a system call failed.
    public let errno: Int32?

    /// An error with `message` (and the failed call's `errno`).
    public init(_ message: String, errno: Int32? = nil) {
        self.message = message
        self.errno = errno
    }

    public var description: String { message }
}

#if canImport(Glibc)
    import Glibc
#endif

/// `strerror(errno)` as a string.
public func errnoText() -> String { String(cString: strerror(errno)) }

/// Seconds on the monotonic clock (`CLOCK_MONOTONIC`), for deadlines and elapsed times.
public func monotonicSeconds() -> Double {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
}
